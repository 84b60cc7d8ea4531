import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetStaging } from 'aws-cdk-lib';
import {
  dropOldVersionGrants as dropOldVersionTemplateGrants,
  editTemplateInPlace,
} from '../../../../scripts/rehearsal/assembly-edits';
import { createAutosaveApp } from '../../../../infra/create-app';
import { registeredFunctionSpecs, registeredWorkflowSpecs } from '../../../../infra/registries';
import type { FunctionSpec, WorkflowSpec } from '../../src/stack-inputs';
import {
  readCloudAssembly,
  resolveAwsDeployment,
  stackOf,
  type DeploymentRecord,
  type ResolvedDeployment,
} from '../../../local/src/cloud-assembly';

/** The stand-in code of each deploy: every function is bundled from it, so deploy 2 changes every function's code. */
const handlerOf = (deploy: 1 | 2): string =>
  fileURLToPath(new URL(`./fixtures/handler-v${deploy}.ts`, import.meta.url));

/** Options of {@link synthAndResolve}. */
export interface SynthOptions {
  /** CDK context (deploy options). @default none */
  readonly context?: Record<string, unknown>;
  readonly workflows?: readonly WorkflowSpec[];
  /** @default the registry's functions */
  readonly functions?: readonly FunctionSpec[];
  /** The account as the previous deploy left it. @default a first deploy */
  readonly previous?: DeploymentRecord;
  /** The region the stack is deployed to. @default the previous deploy's, else the resolver's default */
  readonly region?: string;
}

/**
 * Synthesizes the app with every function bundled (for real, by esbuild) from the stand-in code of
 * deploy 1 or 2, reads the cloud assembly back from disk and resolves it as CloudFormation would on AWS
 * after `previous`. The asset hashes, hence the Lambda version logical ids, hence the pinned version
 * ARNs, change exactly as a real code change makes them; only the bundles are small.
 */
export function synthAndResolve(deploy: 1 | 2, options: SynthOptions = {}): ResolvedDeployment {
  const outdir = synthAssembly(deploy, options);
  try {
    const artifact = stackOf(readCloudAssembly(outdir));
    return resolveAwsDeployment(artifact.template, {
      stackName: artifact.stackName,
      previous: options.previous,
      region: options.region,
    });
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** Synthesizes the app (stand-in code of deploy 1 or 2) into a new cloud assembly directory; the caller removes it. */
export function synthAssembly(deploy: 1 | 2, options: Omit<SynthOptions, 'previous' | 'region'> = {}): string {
  const outdir = mkdtempSync(join(tmpdir(), `autosave-iam-${deploy}-`));
  // The staging cache is keyed by source path and options, not content: clear it so deploy 2 re-bundles.
  AssetStaging.clearAssetHashCache();
  const functions = (options.functions ?? registeredFunctionSpecs()).map((f) => ({ ...f, entry: handlerOf(deploy) }));
  const { app } = createAutosaveApp({
    workflows: [...(options.workflows ?? registeredWorkflowSpecs())],
    functions,
    app: {
      outdir,
      builtinCloudFormationValidation: false,
      context: { 'aws:cdk:bundling-stacks': ['**'], ...options.context },
    },
  });
  app.synth();
  return outdir;
}

/**
 * The stack as it was before the fix (a code-changing deploy strands runs): each state machine role may
 * invoke only the current version ARNs of the functions it pins. Rewrites a synthesized assembly in place.
 */
export function dropOldVersionGrants(assemblyDir: string): void {
  editTemplateInPlace(assemblyDir, dropOldVersionTemplateGrants);
}

/** A first deploy and a second one that changes the code of every function. */
export interface CodeChangingDeploy {
  readonly first: ResolvedDeployment;
  readonly second: ResolvedDeployment;
}

/** Deploys the app twice, the second time with every function's code changed. */
export function codeChangingDeploy(options: Omit<SynthOptions, 'previous'> = {}): CodeChangingDeploy {
  const first = synthAndResolve(1, options);
  const second = synthAndResolve(2, { ...options, previous: first.record });
  return { first, second };
}

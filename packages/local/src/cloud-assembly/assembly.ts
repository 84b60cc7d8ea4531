import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CfnTemplate } from './template';

/** The artifact type of a CloudFormation stack in a cloud assembly manifest. */
export const STACK_ARTIFACT_TYPE = 'aws:cloudformation:stack';
/** The artifact type of an asset manifest. */
export const ASSET_MANIFEST_ARTIFACT_TYPE = 'cdk:asset-manifest';

/** A cloud assembly could not be read (no manifest, a missing template, an unknown stack). */
export class CloudAssemblyError extends Error {
  override readonly name = 'CloudAssemblyError';
}

/** One file asset (a Lambda bundle, a template): where its source sits in the assembly and how it is packaged. */
export interface FileAsset {
  /** The asset hash (also the S3 object key's stem). */
  readonly hash: string;
  /** What the asset is for, e.g. `Functions/ModelStep/Code`. */
  readonly displayName?: string;
  /** Absolute path of the asset's source (a directory for `zip`, a file for `file`). */
  readonly path: string;
  readonly packaging: 'zip' | 'file';
  /** The S3 object keys the asset is published to. */
  readonly objectKeys: readonly string[];
}

/** One stack of the assembly. */
export interface StackArtifact {
  /** The artifact id in manifest.json. */
  readonly id: string;
  /** The CloudFormation stack name (the artifact id unless the manifest says otherwise). */
  readonly stackName: string;
  /** `aws://account/region` (`unknown-account/unknown-region` for an environment-agnostic stack). */
  readonly environment?: string;
  /** Absolute path of the template file. */
  readonly templateFile: string;
  readonly template: CfnTemplate;
  /** The file assets of the stack's asset manifest(s), by hash. */
  readonly assets: ReadonlyMap<string, FileAsset>;
}

/** A cloud assembly directory (`cdk.out`) read into typed objects. */
export interface CloudAssembly {
  /** Absolute path of the directory. */
  readonly directory: string;
  /** The cloud assembly schema version of manifest.json. */
  readonly version: string;
  readonly stacks: readonly StackArtifact[];
}

interface ManifestArtifact {
  readonly type: string;
  readonly environment?: string;
  readonly properties?: { readonly templateFile?: string; readonly stackName?: string; readonly file?: string };
  readonly dependencies?: readonly string[];
}

interface AssetManifestFile {
  readonly files?: Record<
    string,
    {
      readonly displayName?: string;
      readonly source: { readonly path: string; readonly packaging?: 'zip' | 'file' };
      readonly destinations?: Record<string, { readonly objectKey: string }>;
    }
  >;
}

function readJson<T>(path: string): T {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch (error) {
    throw new CloudAssemblyError(`Cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Reads a cloud assembly directory: manifest.json, each stack's template, and the file assets its asset
 * manifests list (asset source paths made absolute). A file format read, like any CloudFormation
 * consumer does: nothing of the CDK app is loaded.
 */
export function readCloudAssembly(directory: string): CloudAssembly {
  const dir = resolve(directory);
  const manifest = readJson<{ version: string; artifacts?: Record<string, ManifestArtifact> }>(
    join(dir, 'manifest.json'),
  );
  const artifacts = manifest.artifacts ?? {};
  const stacks: StackArtifact[] = [];
  for (const [id, artifact] of Object.entries(artifacts)) {
    if (artifact.type !== STACK_ARTIFACT_TYPE) continue;
    const templateFile = join(dir, artifact.properties?.templateFile ?? `${id}.template.json`);
    const assets = new Map<string, FileAsset>();
    for (const dependency of artifact.dependencies ?? []) {
      const dep = artifacts[dependency];
      if (dep?.type !== ASSET_MANIFEST_ARTIFACT_TYPE || !dep.properties?.file) continue;
      const assetManifest = readJson<AssetManifestFile>(join(dir, dep.properties.file));
      for (const [hash, file] of Object.entries(assetManifest.files ?? {})) {
        assets.set(hash, {
          hash,
          displayName: file.displayName,
          path: resolve(dir, file.source.path),
          packaging: file.source.packaging ?? 'file',
          objectKeys: Object.values(file.destinations ?? {}).map((d) => d.objectKey),
        });
      }
    }
    stacks.push({
      id,
      stackName: artifact.properties?.stackName ?? id,
      environment: artifact.environment,
      templateFile,
      template: readJson<CfnTemplate>(templateFile),
      assets,
    });
  }
  return { directory: dir, version: manifest.version, stacks };
}

/** The stack of an assembly with that name (or the only one when no name is given). */
export function stackOf(assembly: CloudAssembly, stackName?: string): StackArtifact {
  const found =
    stackName === undefined
      ? assembly.stacks
      : assembly.stacks.filter((s) => s.stackName === stackName || s.id === stackName);
  if (found.length !== 1) {
    throw new CloudAssemblyError(
      stackName === undefined
        ? `The assembly in ${assembly.directory} has ${assembly.stacks.length} stacks; name one (${assembly.stacks.map((s) => s.stackName).join(', ')})`
        : `No stack "${stackName}" in ${assembly.directory} (stacks: ${assembly.stacks.map((s) => s.stackName).join(', ')})`,
    );
  }
  return found[0];
}

/**
 * The file asset a resource's code comes from: CDK marks asset-backed properties with
 * `aws:asset:path` metadata; otherwise the asset whose object key the property's `S3Key` names.
 */
export function assetOfResource(stack: StackArtifact, logicalId: string): FileAsset | undefined {
  const resource = stack.template.Resources[logicalId];
  if (!resource) return undefined;
  const key = (resource.Properties?.Code as { S3Key?: unknown } | undefined)?.S3Key;
  if (typeof key === 'string') {
    for (const asset of stack.assets.values()) if (asset.objectKeys.includes(key)) return asset;
  }
  const path = resource.Metadata?.['aws:asset:path'];
  if (typeof path === 'string') {
    for (const asset of stack.assets.values())
      if (asset.path.endsWith(path) || asset.hash === path.replace(/^asset\./, '')) return asset;
  }
  return undefined;
}

/**
 * The workflow registry: infra/ deploys and local/ runs exactly these. Adding a workflow is one file in
 * this folder and one line below.
 */
import type { Workflow } from '@autosave/workflow';
import { clinicalTrialOnboarding } from './clinical-trial-onboarding';
import { contractRenewal } from './contract-renewal';
import { researchAgent } from './research-agent';
import { supportTriage } from './support-triage';

/** Every workflow, in the order the CLI lists them. */
export const workflows: readonly Workflow[] = [clinicalTrialOnboarding, contractRenewal, researchAgent, supportTriage];

/** The workflow of that name, or undefined. */
export function findWorkflow(name: string): Workflow | undefined {
  return workflows.find((w) => w.name === name);
}

export { clinicalTrialOnboarding, contractRenewal, researchAgent, supportTriage };

/**
 * The README's cost note, computed from the compiled definitions that `cdk deploy` ships (so it cannot
 * drift from them): state transitions per run and per agent turn, and the Step Functions price per
 * 1,000 runs. Run `npx tsx infra/cost-note.ts` to print it; packages/cdk/test/cost-note.test.ts checks
 * that README.md carries the same figures.
 */
import { fileURLToPath } from 'node:url';
import { compileWorkflow } from '@autosave/workflow';
import { clinicalTrialOnboarding, contractRenewal, researchAgent } from '../statemachines';
import { PRICE_PER_1000_TRANSITIONS_USD, pricePer1000Runs, transitionsPerTurn, walk } from '@autosave/cdk';

/** One priced path through a workflow. */
export interface CostLine {
  readonly workflow: string;
  readonly path: string;
  readonly transitions: number;
  readonly usdPer1000Runs: number;
}

/** Agent turns in the priced research run. */
export const RESEARCH_TURNS = 5;

/** The cost note's figures. */
export interface CostNote {
  readonly lines: readonly CostLine[];
  /** Transitions of one agent turn (model Task, route Choice, tools Task). */
  readonly transitionsPerAgentTurn: number;
}

/** Computes the figures from the compiled example workflows. */
export function computeCostNote(): CostNote {
  const onboarding = compileWorkflow(clinicalTrialOnboarding);
  const renewal = compileWorkflow(contractRenewal);
  const research = compileWorkflow(researchAgent);
  const line = (workflow: string, path: string, states: string[]): CostLine => ({
    workflow,
    path,
    transitions: states.length,
    usdPer1000Runs: pricePer1000Runs(states.length),
  });
  const approval = 'coordinator-approval-decision';
  const loopRoute = 'research-route';
  return {
    lines: [
      line(
        clinicalTrialOnboarding.name,
        'approved (all seven steps)',
        walk(onboarding, (s) => (s === approval ? 'provision-edc-access' : '')),
      ),
      line(
        clinicalTrialOnboarding.name,
        'rejected by the coordinator',
        walk(onboarding, () => ''),
      ),
      line(contractRenewal.name, 'draft + send', walk(renewal)),
      line(
        researchAgent.name,
        `${RESEARCH_TURNS} agent turns, then a final answer`,
        walk(research, (s, visit) => (s === loopRoute ? (visit < RESEARCH_TURNS ? 'research-tools' : 'Done') : '')),
      ),
    ],
    transitionsPerAgentTurn: transitionsPerTurn(research, 'research', (s) => (s === loopRoute ? 'research-tools' : '')),
  };
}

const usd = (n: number): string => `$${n.toFixed(3)}`;

/** The cost note as Markdown. */
export function renderCostNote(note: CostNote = computeCostNote()): string {
  const rows = note.lines.map((l) => `| ${l.workflow} | ${l.path} | ${l.transitions} | ${usd(l.usdPer1000Runs)} |`);
  return [
    `| workflow | path | state transitions per run | Step Functions cost per 1,000 runs |`,
    `|---|---|---|---|`,
    ...rows,
    '',
    `One agent turn costs ${note.transitionsPerAgentTurn} transitions (${usd(pricePer1000Runs(note.transitionsPerAgentTurn))} per 1,000 turns), ` +
      `whatever the number of tool calls in the turn (they run in one tool-step batch). ` +
      `Priced at $${PRICE_PER_1000_TRANSITIONS_USD} per 1,000 transitions (Standard, us-east-1), first try: every retry and every redrive adds transitions.`,
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) console.log(renderCostNote());

import type { AslDefinition, AslState } from '@autosave/workflow';

/** Step Functions Standard price per 1,000 state transitions (us-east-1). */
export const PRICE_PER_1000_TRANSITIONS_USD = 0.025;

/** Picks the next state of a Choice: the name of one of its targets. */
export type ChoiceRoute = (stateName: string, visit: number) => string;

/** Why a walk could not follow a definition (the route names a target the Choice does not have, a loop never ends). */
export class CostWalkError extends Error {
  override readonly name = 'CostWalkError';
}

/** Safety stop: no run we price comes near this many transitions. */
const MAX_WALK = 100_000;

/**
 * The states one execution enters, first try, following `Next` and the route's choices until a state
 * ends the run. Each entered state is one billed state transition; retries and redrives add more.
 */
export function walk(definition: AslDefinition, route: ChoiceRoute = () => ''): string[] {
  const entered: string[] = [];
  const visits = new Map<string, number>();
  let name: string | undefined = definition.StartAt;
  while (name !== undefined) {
    const state: AslState | undefined = definition.States[name];
    if (!state) throw new CostWalkError(`no state named "${name}"`);
    if (entered.length >= MAX_WALK) throw new CostWalkError(`walk did not end within ${MAX_WALK} states`);
    entered.push(name);
    const visit = (visits.get(name) ?? 0) + 1;
    visits.set(name, visit);
    name = nextOf(name, state, visit, route);
  }
  return entered;
}

function nextOf(name: string, state: AslState, visit: number, route: ChoiceRoute): string | undefined {
  if (state.Type === 'Succeed') return undefined;
  if (state.Type === 'Choice') {
    const targets = [...state.Choices.map((c) => c.Next), ...(state.Default ? [state.Default] : [])];
    const chosen = route(name, visit) || state.Default;
    if (!chosen || !targets.includes(chosen)) {
      throw new CostWalkError(`Choice "${name}" has no target "${chosen}" (targets: ${targets.join(', ')})`);
    }
    return chosen;
  }
  return 'Next' in state ? state.Next : undefined;
}

/**
 * The transitions one agent turn costs: the cycle from the loop's model Task back to itself when the
 * route keeps the loop going (model Task, route Choice, tools Task).
 */
export function transitionsPerTurn(definition: AslDefinition, modelState: string, keepLooping: ChoiceRoute): number {
  let name = modelState;
  let count = 0;
  const visits = new Map<string, number>();
  do {
    const state = definition.States[name];
    if (!state) throw new CostWalkError(`no state named "${name}"`);
    count += 1;
    const visit = (visits.get(name) ?? 0) + 1;
    visits.set(name, visit);
    const next = nextOf(name, state, visit, keepLooping);
    if (next === undefined) throw new CostWalkError(`the loop from "${modelState}" ended at "${name}"`);
    if (count > MAX_WALK) throw new CostWalkError(`the loop from "${modelState}" does not return`);
    name = next;
  } while (name !== modelState);
  return count;
}

/** Dollars for 1,000 runs of `transitions` state transitions each. */
export function pricePer1000Runs(transitions: number): number {
  return transitions * PRICE_PER_1000_TRANSITIONS_USD;
}

/**
 * Runs recorded on AWS, replayed on the engine and compared event by event: LocalStack's AWS-validated
 * snapshots of v2/scenarios/test_base_scenarios and v2/base/test_base, one case per recorded run (its
 * template, its input, its history: test/fixtures/history/aws-snapshots/base-scenarios.json, which lists the
 * runs left out and why). Each event with its details, under the recording's own masks
 * (support/recorded-histories.ts).
 *
 * One difference is AWS's own: until Aug 2024 AWS chained a distributed Map's MapStateExited after
 * MapRunSucceeded, and since Nov 2024 after MapRunStarted (16 recordings, to Oct 2025), which the engine
 * follows; for the older recordings here that one previousEventId is not compared.
 */
import { describe, expect, it } from 'vitest';
import { comparable, snapshotFixture } from './support/recorded-histories';
import { recordedEngine } from './support/recorded-run';

interface RecordedScenario {
  readonly snapshot: string;
  /** When AWS recorded it, DD-MM-YYYY. */
  readonly recorded: string;
  readonly definition: object;
  readonly input: unknown;
  readonly events: Record<string, unknown>[];
}

const { cases } = snapshotFixture<{ cases: Record<string, RecordedScenario> }>('base-scenarios.json');
const engine = recordedEngine();

/** Whether AWS recorded the run before it moved a distributed Map's exit to follow MapRunStarted (Nov 2024). */
function beforeExitMoved(recorded: string): boolean {
  const [day, month, year] = recorded.split(/[- ,]/).map(Number);
  return new Date(Date.UTC(year, month - 1, day)) < new Date(Date.UTC(2024, 10, 1));
}

/** The events, with a distributed Map's MapStateExited previousEventId left out when `older`. */
function chained(events: unknown[], older: boolean): unknown[] {
  const distributed = events.some((e) => (e as { type: string }).type === 'MapRunStarted');
  if (!older || !distributed) return events;
  return events.map((e) =>
    (e as { type: string }).type === 'MapStateExited' ? { ...(e as object), previousEventId: 'not compared' } : e,
  );
}

describe('runs recorded on AWS, event by event', () => {
  it.each(Object.keys(cases))('%s', async (name) => {
    const c = cases[name];
    const run = await engine.run(c.definition, c.input);
    const older = beforeExitMoved(c.recorded);
    expect(
      chained(
        run.events.map((e) => comparable(e as Record<string, unknown>)),
        older,
      ),
    ).toEqual(
      chained(
        c.events.map((e) => comparable(e, true)),
        older,
      ),
    );
  });
});

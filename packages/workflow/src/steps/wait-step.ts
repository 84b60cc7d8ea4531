import type { Duration } from '../config';
import type { AslWaitState } from '../asl-types';
import { jsonata } from '../state-data';
import { parseTemplate, referenceExpression, templateReferences, type TemplateReference } from '../template';
import { WorkflowStep, type CompiledStep, type StepCompileContext, type StepOptions } from './step';

/** How long a {@link wait} step waits. Build one with {@link WaitTime.duration} or {@link WaitTime.until}. */
export class WaitTime {
  private constructor(
    /** Fixed seconds, or undefined. */
    readonly seconds: number | undefined,
    /** Reference to an ISO-8601 timestamp, or undefined. */
    readonly timestamp: string | undefined,
  ) {}

  /** Wait a fixed time: `WaitTime.duration(hours(2))`. */
  static duration(d: Duration): WaitTime {
    return new WaitTime(d.seconds, undefined);
  }

  /**
   * Wait until the ISO-8601 timestamp a reference points at: `WaitTime.until('{kickoffAt}')` (input)
   * or `WaitTime.until('{steps.schedule.startsAt}')`.
   */
  static until(reference: string): WaitTime {
    return new WaitTime(undefined, reference);
  }
}

/** Options of a {@link wait} step. */
export interface WaitStepOptions extends StepOptions {
  /** How long to wait. */
  readonly time: WaitTime;
}

/**
 * A durable timer: a Wait state. No compute runs while it waits, and a restart of the local engine or
 * a redeploy on AWS does not reset it. Records no result.
 */
export class WaitStep extends WorkflowStep<WaitStepOptions> {
  readonly kind = 'wait' as const;

  override expressRestriction(): string {
    return 'a durable wait may outlast the 5-minute limit of EXPRESS workflows';
  }

  override references(): TemplateReference[] {
    return this.options.time.timestamp === undefined ? [] : templateReferences(this.options.time.timestamp);
  }

  override validate(fail: (reason: string) => never): void {
    const { seconds, timestamp } = this.options.time;
    if (seconds !== undefined && (!Number.isInteger(seconds) || seconds < 0)) {
      fail(`wait must be a whole number of seconds >= 0, got ${seconds}`);
    }
    if (timestamp !== undefined) {
      const parts = parseTemplate(timestamp);
      if (parts.length !== 1 || !('ref' in parts[0])) {
        fail(`WaitTime.until takes one reference such as '{kickoffAt}', got '${timestamp}'`);
      }
    }
  }

  stateNames(): string[] {
    return [this.name];
  }

  compile(context: StepCompileContext): CompiledStep {
    const { seconds, timestamp } = this.options.time;
    let when: { Seconds: number } | { Timestamp: string };
    if (timestamp !== undefined) {
      const [part] = parseTemplate(timestamp);
      when = { Timestamp: jsonata(referenceExpression((part as { ref: TemplateReference }).ref)) };
    } else {
      when = { Seconds: seconds as number };
    }
    const state: AslWaitState = {
      Type: 'Wait',
      ...(this.options.comment === undefined ? {} : { Comment: this.options.comment }),
      ...when,
      ...context.transition,
    };
    return { states: { [this.name]: state } };
  }
}

/** Declares a wait step. */
export function wait(name: string, options: WaitStepOptions): WaitStep {
  return new WaitStep(name, options);
}

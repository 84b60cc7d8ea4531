import { join } from 'node:path';
import { InvalidStepInputError } from '@autosave/workflow/errors';
import { KeyedFileLog, type JsonSchema, type Tool } from '@autosave/runtime/tools';

/** What a recording fake remembers per key. */
export interface RecordedAction<I, O> {
  readonly tool: string;
  readonly input: I;
  readonly result: O;
}

/** Definition of a deterministic fake tool. */
export interface FakeToolSpec<I, O> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema & { readonly required?: readonly string[] };
  /** The result, a pure function of input and key (so reruns and tests agree). May throw ToolRejectedError. */
  readonly perform: (input: I, idempotencyKey: string) => O;
}

/**
 * A deterministic fake provider behind the Tool interface: it honours idempotency keys like a real API
 * (one action per key, the same result on a repeat) and records every action in `<actionsDir>/<name>/`
 * so tests and the demo can count them.
 */
export class RecordingFakeTool<I extends object, O> implements Tool<I, O> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  private readonly log: KeyedFileLog<RecordedAction<I, O>>;

  constructor(
    private readonly spec: FakeToolSpec<I, O>,
    actionsDir: string,
  ) {
    this.name = spec.name;
    this.description = spec.description;
    this.inputSchema = spec.inputSchema;
    this.log = new KeyedFileLog(join(actionsDir, spec.name));
  }

  async execute(input: I, idempotencyKey: string): Promise<O> {
    for (const field of this.spec.inputSchema.required ?? []) {
      if (input == null || (input as Record<string, unknown>)[field] === undefined) {
        throw new InvalidStepInputError(`${this.name} needs "${field}" in its input`);
      }
    }
    const result = this.spec.perform(input, idempotencyKey);
    const { entry } = await this.log.putOnce(idempotencyKey, { tool: this.name, input, result });
    return entry.value.result;
  }

  async reconcile(idempotencyKey: string) {
    const entry = await this.log.get(idempotencyKey);
    return entry ? { found: true as const, result: entry.value.result } : { found: false as const };
  }

  /** Every action this fake performed, oldest first. */
  async actions(): Promise<RecordedAction<I, O>[]> {
    return (await this.log.list()).map((e) => e.value);
  }
}

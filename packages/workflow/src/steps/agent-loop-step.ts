import { DEFAULT_CONTINUE_AS_NEW_TURNS, DEFAULT_MAX_TURNS } from '../config';
import type { AslChoiceState, AslSucceedState, AslTaskState, Json } from '../asl-types';
import { placeholder } from '../placeholders';
import { retryPolicy } from '../retry-policy';
import { jsonata, recordStepResult, stepResult } from '../state-data';
import { renderString, templateReferences, type TemplateReference } from '../template';
import { lambdaTask, payloadHeader } from './lambda-task';
import { WorkflowStep, type CompiledStep, type StepCompileContext, type TaskStepOptions } from './step';

/** The Step Functions integration that starts another execution (fire and forget). */
export const START_EXECUTION = 'arn:aws:states:::states:startExecution';
/**
 * Error of StartExecution when the name is taken by a closed execution. For continue-as-new that means
 * an earlier attempt of this very Task started the next generation (names are deterministic), so it
 * counts as success.
 */
export const EXECUTION_ALREADY_EXISTS = 'StepFunctions.ExecutionAlreadyExistsException';
/** Key of the execution input that marks a continuation: `{"$continuation": {"step": "<loop>"}}`. */
export const CONTINUATION_KEY = '$continuation';

/**
 * `expression`, or a loud error when `result` lacks the control field the loop routes on. The loop reads
 * `final`/`toolCalls` of a model result and `results` of a batch result; if a Lambda returned its whole
 * result as a `{$ref}` those would be missing, and the loop would quietly end or drop tool results.
 * Failing at the Task instead keeps the run redrivable there. (Lambdas offload fields, not envelopes.)
 */
function requireInline(result: string, field: string, message: string, expression: string): string {
  return `$exists(${result}.${field}) ? ${expression} : $error(${JSON.stringify(`${message} (a whole-result $ref?)`)})`;
}

/** A tool the model may call, as the model-step Lambda passes it to the model (a runtime `Tool` fits). */
export interface AgentTool {
  /** Tool name in the tool registry, e.g. `search-web`. */
  readonly name: string;
  /** What the tool does, for the model. */
  readonly description: string;
  /** JSON Schema of the tool's input. */
  readonly inputSchema: Readonly<Record<string, unknown>>;
}

/** Options of an {@link agentLoop} step. */
export interface AgentLoopStepOptions extends TaskStepOptions {
  /** The task given to the model at turn 0, a template: `Answer with sources: {question}`. */
  readonly task: string;
  /** System prompt, a template. @default none */
  readonly system?: string;
  /** @default the model-step Lambda's configured model */
  readonly modelId?: string;
  /** Tools the model may call. */
  readonly tools: readonly AgentTool[];
  /**
   * Model turns before the loop stops without a final answer (the result then has `final: false`;
   * the workflow goes on). @default DEFAULT_MAX_TURNS (50)
   */
  readonly maxTurns?: number;
  /**
   * Turns per execution: after this many model turns the run continues as a new execution
   * `<root>-g<generation>` with its state carried over, and ends successfully. Bounded by
   * HISTORY_EVENT_BUDGET divided by the events of one turn (12, see planHistory). @default DEFAULT_CONTINUE_AS_NEW_TURNS (1,000)
   */
  readonly continueAsNewEvery?: number;
}

/** Suffixes of the states an agent loop emits besides its model Task (named after the step). */
export const AGENT_LOOP_STATE_SUFFIXES = {
  route: '-route',
  tools: '-tools',
  continueAsNew: '-continue-as-new',
  continued: '-continued',
} as const;

/**
 * ReAct: the model Task asks the model (with the tools and the previous turn's tool results), a Choice
 * routes, the tools Task runs all of the turn's tool calls in one batch invocation (each call with the
 * key `<root>:<step>:<turn>:<toolCallId>`), and back to the model. The loop's running state is the
 * step's result: `ModelStepResult` plus `turn`, `generation`, `root`, `toolResults`.
 *
 * Route order: a final answer (or no tool calls) leaves the loop; so does the last allowed turn; every
 * `continueAsNewEvery` turns the pending tool calls are handed to the next generation instead
 * (StartExecution through `${WorkflowAliasArn}`, name `<root>-g<n>`, then a Succeed state), which
 * resumes at the tools Task. Deciding this in the one route Choice keeps a turn at 12 history events.
 */
export class AgentLoopStep extends WorkflowStep<AgentLoopStepOptions> {
  readonly kind = 'agentLoop' as const;

  override expressRestriction(): string {
    return 'an agent loop runs for many turns and continues as new, which EXPRESS workflows cannot';
  }

  override references(): TemplateReference[] {
    return [this.options.task, this.options.system ?? ''].flatMap(templateReferences);
  }

  override validate(fail: (reason: string) => never): void {
    for (const [field, value] of [
      ['maxTurns', this.maxTurns],
      ['continueAsNewEvery', this.continueAsNewEvery],
    ] as const) {
      if (!Number.isInteger(value) || value < 1) fail(`${field} must be a whole number >= 1, got ${value}`);
    }
    if (this.options.tools.length === 0) fail('an agent loop needs at least one tool');
    const names = this.options.tools.map((t) => t.name);
    const dup = names.find((n, i) => names.indexOf(n) !== i);
    if (dup !== undefined) fail(`tool '${dup}' is listed twice`);
  }

  /** @see AgentLoopStepOptions.maxTurns */
  get maxTurns(): number {
    return this.options.maxTurns ?? DEFAULT_MAX_TURNS;
  }

  /** @see AgentLoopStepOptions.continueAsNewEvery */
  get continueAsNewEvery(): number {
    return this.options.continueAsNewEvery ?? DEFAULT_CONTINUE_AS_NEW_TURNS;
  }

  /** The state names of the loop, by role. */
  get states(): { model: string; route: string; tools: string; continueAsNew: string; continued: string } {
    const s = AGENT_LOOP_STATE_SUFFIXES;
    return {
      model: this.name,
      route: this.name + s.route,
      tools: this.name + s.tools,
      continueAsNew: this.name + s.continueAsNew,
      continued: this.name + s.continued,
    };
  }

  /** Where a continued execution resumes: the tools Task, with the previous generation's calls. */
  get resumeState(): string {
    return this.states.tools;
  }

  stateNames(): string[] {
    return Object.values(this.states);
  }

  compile(context: StepCompileContext): CompiledStep {
    const o = this.options;
    const names = this.states;
    const loop = stepResult(this.name);
    // Step Functions fails a field whose JSONata yields nothing (States.QueryEvaluationError), so every
    // read of the loop state that may be absent (turn 0, or an optional result field) has a fallback.
    const orInitial = (field: string, initial: string) => `($exists(${loop}.${field}) ? ${loop}.${field} : ${initial})`;
    const step = JSON.stringify(this.name);

    const modelPayload: Record<string, Json> = {
      ...payloadHeader(context.workflow, this.name),
      turn: jsonata(orInitial('turn', '0')),
      prompt: renderString(o.task),
      ...(o.system === undefined ? {} : { system: renderString(o.system) }),
      ...(o.modelId === undefined ? {} : { modelId: o.modelId }),
      // Only what the model needs: a runtime Tool object can be passed as an AgentTool as it is.
      tools: o.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema as Json })),
      conversation: jsonata(orInitial('conversation', 'null')),
      toolResults: jsonata(orInitial('toolResults', '[]')),
    };
    const modelTask = lambdaTask({
      step: this.name,
      functionArn: 'ModelStepFunctionArn',
      payload: modelPayload,
      output: recordStepResult(
        this.name,
        requireInline(
          '$states.result.Payload',
          'final',
          `model-step result of '${this.name}' has no inline 'final'`,
          `$merge([$states.result.Payload, {"turn": ${orInitial('turn', '0')}, "generation": ${orInitial('generation', '0')}, "root": ${orInitial('root', '$states.context.Execution.Name')}, "toolResults": []}])`,
        ),
      ),
      transition: { Next: names.route },
      retry: o,
      comment: o.comment,
    });

    const after = context.following();
    const route: AslChoiceState = {
      Type: 'Choice',
      Choices: [
        { Condition: jsonata(`${loop}.final = true or $count(${loop}.toolCalls) = 0`), Next: after },
        { Condition: jsonata(`${loop}.turn + 1 >= ${this.maxTurns}`), Next: after },
        { Condition: jsonata(`(${loop}.turn + 1) % ${this.continueAsNewEvery} = 0`), Next: names.continueAsNew },
      ],
      Default: names.tools,
    };

    const calls =
      `[$map(${loop}.toolCalls, function($call) { {"id": $call.id, "tool": $call.name, ` +
      `"idempotencyKey": ${loop}.root & ":" & ${step} & ":" & $string(${loop}.turn) & ":" & $call.id, "input": $call.input} })]`;
    const toolsTask = lambdaTask({
      step: this.name,
      functionArn: 'ToolStepFunctionArn',
      payload: { ...payloadHeader(context.workflow, this.name), turn: jsonata(`${loop}.turn`), calls: jsonata(calls) },
      output: recordStepResult(
        this.name,
        requireInline(
          '$states.result.Payload',
          'results',
          `tool-step batch result of '${this.name}' has no inline 'results'`,
          `$merge([${loop}, {"toolCalls": [], "toolResults": $states.result.Payload.results, "turn": ${loop}.turn + 1}])`,
        ),
      ),
      transition: { Next: names.model },
      retry: o,
    });

    const nextGeneration = `${loop}.generation + 1`;
    const carried =
      `{"input": $states.input.input, "steps": $merge([$states.input.steps, {${step}: $merge([${loop}, {"generation": ${nextGeneration}}])}]), ` +
      `${JSON.stringify(CONTINUATION_KEY)}: {"step": ${step}}, "AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID": $states.context.Execution.Id}`;
    const continuedAs = (arn: string) => recordStepResult(this.name, `$merge([${loop}, {"continuedAs": ${arn}}])`);
    const continueAsNew: AslTaskState = {
      Type: 'Task',
      Comment: `continue as new every ${this.continueAsNewEvery} turns, before the history limit`,
      Resource: START_EXECUTION,
      Arguments: {
        StateMachineArn: placeholder('WorkflowAliasArn'),
        Name: jsonata(`${loop}.root & "-g" & $string(${nextGeneration})`),
        Input: jsonata(carried),
      },
      Output: continuedAs('$states.result.ExecutionArn'),
      Retry: retryPolicy({
        retry: o.retry,
        nonRetryableErrors: [EXECUTION_ALREADY_EXISTS, ...(o.nonRetryableErrors ?? [])],
      }),
      // Not a failure path: the name is deterministic, so "already exists" means our own earlier attempt started it.
      Catch: [
        {
          ErrorEquals: [EXECUTION_ALREADY_EXISTS],
          Next: names.continued,
          Output: continuedAs(`${loop}.root & "-g" & $string(${nextGeneration})`),
        },
      ],
      Next: names.continued,
    };
    const continued: AslSucceedState = { Type: 'Succeed', Comment: 'the next generation carries on' };

    return {
      states: {
        [names.model]: modelTask,
        [names.route]: route,
        [names.tools]: toolsTask,
        [names.continueAsNew]: continueAsNew,
        [names.continued]: continued,
      },
      // One turn: model Task, route Choice, tools Task (5 + 2 + 5 = 12 history events).
      loop: { states: [names.model, names.route, names.tools], iterations: this.continueAsNewEvery },
    };
  }
}

/** Declares an agent loop step. */
export function agentLoop(name: string, options: AgentLoopStepOptions): AgentLoopStep {
  return new AgentLoopStep(name, options);
}

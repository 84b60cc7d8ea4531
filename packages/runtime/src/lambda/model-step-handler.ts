import { ModelProviderDefinitionError, runModelStep, type ModelProvider } from '../models';
import { lambdaHandler, modelCallWith, offloadingLargeResult, payloadStore, type LambdaContextLike } from './runtime';

/** Options of {@link modelStepHandler}. */
export interface ModelStepHandlerOptions {
  /**
   * The model behind every model step and agent-loop turn: any {@link ModelProvider} (one `converse`
   * call per turn). Its answers are recorded before they are returned and replayed on retry, like the
   * built-in Bedrock provider's.
   */
  readonly provider: ModelProvider;
}

/** A model-step Lambda handler (event, context). */
export type ModelStepHandler = (event: unknown, context?: LambdaContextLike) => Promise<unknown>;

/**
 * The model-step Lambda handler over your model provider. Export it as `handler` from your model-step
 * entry and name the file in the construct's `modelStep.entry`.
 *
 * ```ts
 * export const handler = modelStepHandler({ provider: myProvider });
 * ```
 * @throws ModelProviderDefinitionError for a provider without `converse`
 */
export function modelStepHandler(options: ModelStepHandlerOptions): ModelStepHandler {
  const provider = options.provider;
  if (!provider || typeof provider.converse !== 'function')
    throw new ModelProviderDefinitionError('modelStepHandler needs a provider with a converse(request, site) method');
  return lambdaHandler(
    offloadingLargeResult((event: unknown, rt) =>
      runModelStep({ model: modelCallWith(rt, provider), payloads: payloadStore(rt) }, event),
    ),
  );
}

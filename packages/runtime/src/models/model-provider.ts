import type { ModelCallSite, ModelRequest, ModelResponse } from './conversation';

/** Something that answers model requests: Bedrock Converse on AWS, a script locally. */
export interface ModelProvider {
  readonly name: string;
  /** One model call. `site` says where in a run it happens (the scripted provider answers by it). */
  converse(request: ModelRequest, site: ModelCallSite): Promise<ModelResponse>;
}

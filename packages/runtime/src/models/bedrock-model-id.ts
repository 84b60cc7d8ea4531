/**
 * The forms a Bedrock `modelId` takes (Converse accepts each), read so that a grant can follow it:
 * - a foundation model id, `anthropic.claude-3-5-haiku-20241022-v1:0`, or its ARN
 *   (`arn:aws:bedrock:<region>::foundation-model/<id>`);
 * - a system-defined cross-region inference profile id, `<geography>.<foundation model id>`
 *   (`us.anthropic.claude-…`, `eu.`, `apac.`, `global.`, …), or its ARN
 *   (`arn:aws:bedrock:<region>:<account>:inference-profile/<profile id>`).
 */
export type BedrockModelTarget =
  | { readonly kind: 'foundation-model'; readonly foundationModelId: string; readonly arn?: string }
  | {
      readonly kind: 'inference-profile';
      readonly profileId: string;
      readonly foundationModelId: string;
      readonly arn?: string;
    };

/**
 * Geography prefixes of Bedrock's system-defined inference profiles (the "Supported Regions and models
 * for inference profiles" table): each routes to the foundation model in several regions.
 */
export const INFERENCE_PROFILE_GEOGRAPHIES: readonly string[] = [
  'us',
  'us-gov',
  'eu',
  'apac',
  'jp',
  'au',
  'ca',
  'global',
];

/** A model id Bedrock would refuse, or one whose routing is not known before deploy. */
export class BedrockModelIdError extends Error {
  override readonly name = 'BedrockModelIdError';
}

const BEDROCK_ARN = /^arn:(aws[a-z-]*):bedrock:([a-z0-9-]*):(\d{12})?:([a-z-]+)\/(.+)$/;

/**
 * What a model id names. @throws BedrockModelIdError for an empty id, an application inference profile
 * (its models are known only to Bedrock, so no grant can be derived from its id) or another ARN.
 */
export function bedrockModelTarget(modelId: string): BedrockModelTarget {
  if (!modelId.trim()) throw new BedrockModelIdError('The Bedrock model id is empty');
  const arn = BEDROCK_ARN.exec(modelId);
  if (arn) {
    const [, , , , resourceType, resourceId] = arn;
    if (resourceType === 'foundation-model')
      return { kind: 'foundation-model', foundationModelId: resourceId, arn: modelId };
    if (resourceType === 'inference-profile') {
      const profile = profileOf(resourceId);
      if (!profile)
        throw new BedrockModelIdError(
          `"${modelId}" names an inference profile without a known geography prefix (${INFERENCE_PROFILE_GEOGRAPHIES.join(', ')})`,
        );
      return { ...profile, arn: modelId };
    }
    throw new BedrockModelIdError(
      `"${modelId}" is a Bedrock ${resourceType}: use a foundation model id, a cross-region inference profile id (us.…, eu.…, global.…) or their ARN`,
    );
  }
  if (modelId.startsWith('arn:')) throw new BedrockModelIdError(`"${modelId}" is not a Bedrock ARN`);
  return profileOf(modelId) ?? { kind: 'foundation-model', foundationModelId: modelId };
}

function profileOf(id: string): BedrockModelTarget | undefined {
  const dot = id.indexOf('.');
  const geography = id.slice(0, dot);
  // `<geography>.<provider>.<model>`: the rest is itself a foundation model id.
  if (dot <= 0 || !INFERENCE_PROFILE_GEOGRAPHIES.includes(geography) || !id.slice(dot + 1).includes('.'))
    return undefined;
  return { kind: 'inference-profile', profileId: id, foundationModelId: id.slice(dot + 1) };
}

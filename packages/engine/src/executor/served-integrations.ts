/**
 * The optimized integrations the engine serves on emulated services, by the service part of their ARN.
 * Adding one: a module shaped as {@link ServedIntegration}, listed here.
 */
import { bedrockIntegration } from './bedrock-integration';
import { eventsIntegration } from './events-integration';
import { httpIntegration } from './http-integration';
import type { IntegrationPattern } from './integration-catalog';
import type { ServedIntegration } from './served-integration';
import { snsIntegration } from './sns-integration';

export const SERVED_INTEGRATIONS: Readonly<Record<string, ServedIntegration>> = Object.fromEntries(
  [snsIntegration, eventsIntegration, bedrockIntegration, httpIntegration].map((i) => [i.service, i]),
);

/** The served integration for `<service>:<action>` with this pattern, or undefined. */
export function servedIntegration(
  service: string,
  action: string,
  pattern: IntegrationPattern,
): ServedIntegration | undefined {
  const integration = Object.hasOwn(SERVED_INTEGRATIONS, service) ? SERVED_INTEGRATIONS[service] : undefined;
  return integration && Object.hasOwn(integration.actions, action) && integration.actions[action].includes(pattern)
    ? integration
    : undefined;
}

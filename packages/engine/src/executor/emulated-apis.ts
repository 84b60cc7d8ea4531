/**
 * The API actions of the emulated services (PascalCase, as the SDK names them): what an
 * `aws-sdk:<service>:<action>` Task may call on them, and what each service in packages/local/src/services
 * implements (its tests check every action listed here).
 */
export const EMULATED_API_ACTIONS = {
  sns: [
    'CreateTopic',
    'DeleteTopic',
    'ListTopics',
    'GetTopicAttributes',
    'SetTopicAttributes',
    'Subscribe',
    'Unsubscribe',
    'ListSubscriptions',
    'ListSubscriptionsByTopic',
    'Publish',
    'PublishBatch',
  ],
  eventbridge: [
    'PutEvents',
    'CreateEventBus',
    'DeleteEventBus',
    'DescribeEventBus',
    'ListEventBuses',
    'PutRule',
    'DescribeRule',
    'DeleteRule',
    'ListRules',
    'EnableRule',
    'DisableRule',
    'PutTargets',
    'RemoveTargets',
    'ListTargetsByRule',
  ],
  cloudwatch: ['PutMetricData', 'ListMetrics'],
} as const satisfies Record<string, readonly string[]>;

/** A service the engine emulates through a {@link ServiceApi} port. */
export type EmulatedService = keyof typeof EMULATED_API_ACTIONS;

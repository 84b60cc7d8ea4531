export {
  LocalSns,
  type LocalSnsOptions,
  type PublishedMessage,
  type SnsSubscription,
  type SnsTopic,
} from './local-sns';

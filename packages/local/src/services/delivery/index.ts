export { ASYNC_LAMBDA_RETRIES, invokeAsynchronously, type AsyncInvokeOutcome } from './async-invoke';
export {
  DeliveryTargets,
  localQueueSender,
  targetKind,
  type Delivery,
  type DeliveryServices,
} from './delivery-targets';

export { ASYNC_LAMBDA_RETRIES, DeliveryTargets, localQueueSender, targetKind, type Delivery, type DeliveryServices } from './delivery-targets';

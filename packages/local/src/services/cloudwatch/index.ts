export { LocalCloudWatch, type MetricDatum } from './local-cloudwatch';

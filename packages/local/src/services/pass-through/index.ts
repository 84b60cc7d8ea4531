export { checkPassThroughRoutes, PassThroughRouteError } from './route-check';
export {
  clientPackage,
  PassThroughClientMissingError,
  SdkPassThrough,
  type PassThroughRoute,
  type SdkPassThroughOptions,
} from './sdk-pass-through';

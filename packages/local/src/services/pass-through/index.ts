export { clientPackage, PassThroughClientMissingError, SdkPassThrough, type PassThroughRoute, type SdkPassThroughOptions } from './sdk-pass-through';

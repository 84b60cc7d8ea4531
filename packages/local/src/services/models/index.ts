export { LocalModels, type LocalModelsOptions } from './local-models';

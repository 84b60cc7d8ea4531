export { FileConnections, type LocalConnection } from './file-connections';

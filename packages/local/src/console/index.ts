/** The local console: server-rendered pages over the engine's own Step Functions and SQS APIs. */
export { createConsoleHandler, type ConsoleOptions } from './console-handler';
export { renderStateGraph, layoutStateGraph, type AslDefinition } from './state-graph';
export { html, escapeHtml, SafeHtml } from './html';
export type { ConsoleServices } from './pages/services-page';

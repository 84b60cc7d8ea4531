export { createConsoleHandler, type ConsoleOptions } from './console-handler';
export { renderStateGraph, layoutStateGraph, type AslDefinition } from './state-graph';
export { html, escapeHtml, SafeHtml } from './html';

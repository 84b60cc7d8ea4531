import jsonata from 'jsonata';
import { InvalidStepInputError } from '@autosave/workflow/errors';
import { sha256Hex } from '@autosave/runtime/records';
import { ToolRejectedError, type Tool } from '@autosave/runtime/tools';

/** Size of a document `read-document` returns when the input asks for none. */
export const DEFAULT_DOCUMENT_BYTES = 2_000;
/** Largest document `read-document` will make up. */
export const MAX_DOCUMENT_BYTES = 5 * 1024 * 1024;

const TOPICS = ['durable execution', 'idempotency keys', 'state machines', 'human approvals', 'payload offloading'];

/** `search-web`: deterministic results derived from the query (no network). */
export const searchWebTool: Tool<
  { query: string },
  { query: string; results: { title: string; url: string; snippet: string }[] }
> = {
  name: 'search-web',
  description: 'Searches the web and returns the top three results.',
  inputSchema: { type: 'object', required: ['query'], properties: { query: { type: 'string' } } },
  async execute(input) {
    if (typeof input?.query !== 'string') throw new InvalidStepInputError('search-web needs {query}');
    const h = sha256Hex(input.query);
    const results = [0, 1, 2].map((i) => {
      const topic = TOPICS[parseInt(h.slice(i * 2, i * 2 + 2), 16) % TOPICS.length];
      const slug = h.slice(8 + i * 6, 14 + i * 6);
      return {
        title: `${topic} — ${input.query}`,
        url: `https://example.org/${slug}`,
        snippet: `An article on ${topic} relevant to "${input.query}".`,
      };
    });
    return { query: input.query, results };
  },
};

/** `read-document`: a deterministic text of the requested size (`bytes`) for a URL. */
export const readDocumentTool: Tool<{ url: string; bytes?: number }, { url: string; text: string }> = {
  name: 'read-document',
  description: 'Fetches a document and returns its text.',
  inputSchema: {
    type: 'object',
    required: ['url'],
    properties: { url: { type: 'string' }, bytes: { type: 'number' } },
  },
  async execute(input) {
    if (typeof input?.url !== 'string') throw new InvalidStepInputError('read-document needs {url}');
    const size = Math.min(input.bytes ?? DEFAULT_DOCUMENT_BYTES, MAX_DOCUMENT_BYTES);
    const paragraph = `Document ${input.url} (${sha256Hex(input.url).slice(0, 12)}): durable workflows checkpoint every step. `;
    return { url: input.url, text: paragraph.repeat(Math.ceil(size / paragraph.length)).slice(0, size) };
  },
};

/** Only arithmetic reaches the evaluator: digits, operators, parentheses, dots and spaces. */
const ARITHMETIC = /^[\d\s+\-*/%().]+$/;

/** `calculator`: evaluates an arithmetic expression (with JSONata's arithmetic, never `eval`). */
export const calculatorTool: Tool<{ expression: string }, { expression: string; value: number }> = {
  name: 'calculator',
  description: 'Evaluates an arithmetic expression such as "(1200 * 0.15) + 40".',
  inputSchema: { type: 'object', required: ['expression'], properties: { expression: { type: 'string' } } },
  async execute(input) {
    if (typeof input?.expression !== 'string') throw new InvalidStepInputError('calculator needs {expression}');
    if (!ARITHMETIC.test(input.expression))
      throw new ToolRejectedError(`Not an arithmetic expression: ${input.expression}`);
    let value: unknown;
    try {
      value = await jsonata(input.expression).evaluate({});
    } catch (error) {
      throw new ToolRejectedError(`Cannot evaluate ${input.expression}`, { cause: error });
    }
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw new ToolRejectedError(`${input.expression} is not a finite number`);
    return { expression: input.expression, value };
  },
};

/** The research agent's tools. */
export const researchTools = (): Tool[] => [searchWebTool, readDocumentTool, calculatorTool];

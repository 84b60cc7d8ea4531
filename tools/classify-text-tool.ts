import { InvalidStepInputError } from '@autosave/workflow/errors';
import type { Tool } from '@autosave/runtime/tools';

/** What `classify-text` takes: the text, and per label the words that put a text under it. */
export interface ClassifyTextInput {
  readonly text: string;
  readonly labels: Readonly<Record<string, readonly string[]>>;
  /** The label when no word matches. @default 'other' */
  readonly otherwise?: string;
}

/** The label with the most matching words (ties: the first listed), and the words that matched. */
export interface ClassifyTextOutput {
  readonly label: string;
  readonly matched: readonly string[];
}

/** `classify-text`: a keyword classifier, deterministic and free of side effects (safe to repeat). */
export const classifyTextTool: Tool<ClassifyTextInput, ClassifyTextOutput> = {
  name: 'classify-text',
  description: 'Puts a text under one of the given labels by the words each label lists.',
  inputSchema: {
    type: 'object',
    required: ['text', 'labels'],
    properties: { text: { type: 'string' }, labels: { type: 'object' }, otherwise: { type: 'string' } },
  },
  async execute(input) {
    if (typeof input?.text !== 'string' || input.labels === null || typeof input.labels !== 'object') {
      throw new InvalidStepInputError('classify-text needs {text, labels}');
    }
    const words = new Set(input.text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
    let best: ClassifyTextOutput = { label: input.otherwise ?? 'other', matched: [] };
    for (const [label, keywords] of Object.entries(input.labels)) {
      const matched = (Array.isArray(keywords) ? keywords : []).filter((k) => words.has(String(k).toLowerCase()));
      if (matched.length > best.matched.length) best = { label, matched };
    }
    return best;
  },
};

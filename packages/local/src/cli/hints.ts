/**
 * The command lines the CLI prints for a user to copy. A hint keeps the `--endpoint` the user gave: a copied
 * command that silently talks to another engine (or to AWS) is worse than none.
 */
export function cliHint(command: string, endpoint?: string): string {
  return `npx autosave ${command}${endpoint ? ` --endpoint ${endpoint}` : ''}`;
}

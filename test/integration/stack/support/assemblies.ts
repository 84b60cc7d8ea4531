/**
 * Cloud assemblies for the stack-mode tests: the app as it is (v1) and the rehearsal's changed copy
 * (v2: the send-email tool's code and the onboarding definition edited), synthesized once and cached by
 * source hash (a later test file, or run, finds them), and hand-edited copies of a template.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { editedAssemblyCopy, type EditableTemplate } from '../../../../scripts/rehearsal/assembly-edits';
import { changedAppCopy } from '../../../../scripts/rehearsal/rehearsal';
import { synthesizeAssembly } from '../../../../packages/local/src/cli/stack-assembly';
import { REPOSITORY_ROOT as PROJECT_ROOT } from '../../../../scripts/repository-root';

/** Long enough to synthesize both apps on a loaded machine (bundling included). */
export const SYNTH_TIMEOUT_MILLIS = 240_000;

const CACHE = join(PROJECT_ROOT, 'node_modules', '.cache', 'autosave-assemblies');

/** The app's assembly and the rehearsal's changed one. */
export async function appAssemblies(): Promise<{ v1: string; v2: string }> {
  const v1 = await synthesizeAssembly();
  const v2 = await synthesizeAssembly({
    projectRoot: changedAppCopy(mkdtempSync(join(tmpdir(), 'autosave-app-v2-'))),
    cacheDir: CACHE,
  });
  return { v1: v1.directory, v2: v2.directory };
}

/** A copy of an assembly (its bundles linked, not copied) whose template `edit` changed. */
export function editedAssembly(from: string, edit: (template: EditableTemplate) => void): string {
  return editedAssemblyCopy(from, mkdtempSync(join(tmpdir(), 'autosave-edited-assembly-')), edit);
}

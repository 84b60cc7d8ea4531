/**
 * Cloud assemblies for the stack-mode tests: the app as it is (v1) and the rehearsal's changed copy
 * (v2: the send-email tool's code and the onboarding definition edited), synthesized once and cached by
 * source hash (a later test file, or run, finds them), and hand-edited copies of a template.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CfnTemplate } from '../../../../lib/cloud-assembly';
import { changedAppCopy } from '../../../../cli/rehearsal';
import { PROJECT_ROOT, synthesizeAssembly } from '../../../../cli/stack-assembly';

/** Long enough to synthesize both apps on a loaded machine (bundling included). */
export const SYNTH_TIMEOUT_MILLIS = 240_000;

const CACHE = join(PROJECT_ROOT, 'node_modules', '.cache', 'autosave-assemblies');

/** The app's assembly and the rehearsal's changed one. */
export async function appAssemblies(): Promise<{ v1: string; v2: string }> {
  const v1 = await synthesizeAssembly();
  const v2 = await synthesizeAssembly({ projectRoot: changedAppCopy(mkdtempSync(join(tmpdir(), 'autosave-app-v2-'))), cacheDir: CACHE });
  return { v1: v1.directory, v2: v2.directory };
}

/** A copy of an assembly (its bundles linked, not copied) whose template `edit` changed. */
export function editedAssembly(from: string, edit: (template: CfnTemplate & { Resources: Record<string, any> }) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'autosave-edited-assembly-'));
  mkdirSync(dir, { recursive: true });
  for (const entry of readdirSync(from)) {
    if (entry.startsWith('asset.')) symlinkSync(join(from, entry), join(dir, entry));
    else cpSync(join(from, entry), join(dir, entry), { recursive: true });
  }
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { artifacts: Record<string, { type: string; properties?: { templateFile?: string } }> };
  const stack = Object.values(manifest.artifacts).find((a) => a.type === 'aws:cloudformation:stack')!;
  const file = join(dir, stack.properties!.templateFile!);
  const template = JSON.parse(readFileSync(file, 'utf8'));
  edit(template);
  writeFileSync(file, JSON.stringify(template));
  return dir;
}

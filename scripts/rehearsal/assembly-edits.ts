/**
 * Hand edits of a synthesized cloud assembly, for rehearsing what a template the app does not make would
 * do (a role that drops old versions): a copy whose bundles are linked, not copied, and whose template
 * an edit rewrote.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { readCloudAssembly, stackOf, type CfnTemplate } from '../../packages/local/src/cloud-assembly';

/** A template as an edit sees it: resources of any shape. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an edit reaches into any resource's properties by name
export type EditableTemplate = CfnTemplate & { Resources: Record<string, any> };

/** Rewrites the stack template of an assembly directory in place. */
export function editTemplateInPlace(assemblyDir: string, edit: (template: EditableTemplate) => void): void {
  const file = join(assemblyDir, basename(stackOf(readCloudAssembly(assemblyDir)).templateFile));
  const template = JSON.parse(readFileSync(file, 'utf8')) as EditableTemplate;
  edit(template);
  writeFileSync(file, JSON.stringify(template));
}

/** Copies an assembly into `to` (its asset folders linked) and rewrites the copy's template with `edit`. */
export function editedAssemblyCopy(from: string, to: string, edit: (template: EditableTemplate) => void): string {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from)) {
    if (entry.startsWith('asset.')) symlinkSync(join(from, entry), join(to, entry));
    else cpSync(join(from, entry), join(to, entry), { recursive: true });
  }
  editTemplateInPlace(to, edit);
  return to;
}

/**
 * The grants a role that drops old versions has: every `lambda:InvokeFunction` on `<function>:*` (each
 * version of the function) becomes the function's current Version resource only. Runs in flight on an
 * older version are then denied their next call once the template is deployed.
 */
export function dropOldVersionGrants(template: EditableTemplate): void {
  const versionOf = (fnId: string) =>
    Object.entries(template.Resources).find(
      ([, r]) => r.Type === 'AWS::Lambda::Version' && r.Properties?.FunctionName?.Ref === fnId,
    )?.[0];
  for (const r of Object.values(template.Resources)) {
    if (r.Type !== 'AWS::IAM::Policy') continue;
    for (const st of r.Properties.PolicyDocument.Statement) {
      if (st.Action !== 'lambda:InvokeFunction') continue;
      // A Resource is a string or an intrinsic of any shape.
      st.Resource = [st.Resource].flat().map((res: EditableTemplate['Resources'][string]) => {
        const fnId = res?.['Fn::Join']?.[1]?.[0]?.['Fn::GetAtt']?.[0];
        const version = fnId && versionOf(fnId);
        return version ? { Ref: version } : res;
      });
    }
  }
}

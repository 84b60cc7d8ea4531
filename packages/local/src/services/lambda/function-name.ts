/**
 * The function a Lambda `FunctionName` names, whatever form it takes: `name`, `name:qualifier`,
 * `123456789012:function:name[:qualifier]` or the full `arn:aws:lambda:<region>:<account>:function:name[:qualifier]`.
 * Region and account are ignored: locally a function is known by its name alone.
 */
export function parseFunctionName(functionName: string, qualifier?: string): { name: string; qualifier?: string } {
  const parts = functionName.split(':');
  let rest: string[];
  if (parts[0] === 'arn')
    rest = parts.slice(6); // arn:partition:lambda:region:account:function:name[:q]
  else if (parts.length >= 3 && parts[1] === 'function')
    rest = parts.slice(2); // account:function:name[:q]
  else rest = parts;
  const [name, fromArn] = rest;
  const q = qualifier ?? fromArn;
  return q === undefined ? { name } : { name, qualifier: q };
}

/** The ARN of a local function, as `invokedFunctionArn` shows it. */
export function functionArn(name: string, region: string, accountId: string, qualifier?: string): string {
  return `arn:aws:lambda:${region}:${accountId}:function:${name}${qualifier ? `:${qualifier}` : ''}`;
}

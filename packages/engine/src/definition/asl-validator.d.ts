/** Types for asl-validator@4 (it ships none). It mutates its input: pass a copy. */
declare module 'asl-validator' {
  interface AslValidatorError {
    readonly 'Error code': string;
    readonly Message: string;
    readonly schemaError?: { readonly instancePath?: string; readonly schemaPath?: string };
  }
  interface AslValidatorOptions {
    readonly checkPaths?: boolean;
    readonly checkArn?: boolean;
  }
  function validator(
    definition: object,
    options?: AslValidatorOptions,
  ): { readonly isValid: boolean; readonly errors: readonly AslValidatorError[] };
  export default validator;
}

/**
 * Where every AWS client points: the standard AWS_ENDPOINT_URL_* variables, a local engine's
 * endpoints.json, or AWS itself.
 */
export * from './endpoints';
export * from './environment';

/**
 * TEST SEAM: named points where a process kills itself with SIGKILL when the environment asks it to.
 */
export * from './crash-point';

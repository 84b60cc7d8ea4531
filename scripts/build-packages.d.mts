/** The declarations of scripts/build-packages.mjs, for the tests that import its pure parts. */

/** The repository root. */
export declare const ROOT: string;
/** The built-in functions @autosave/cdk ships prebuilt. */
export declare const PREBUILT_FUNCTIONS: readonly string[];
/** Where each package's last build records the hash of its inputs. */
export declare const STAMP_DIR: string;

/** What {@link buildDecision} weighs. */
export interface BuildState {
  /** The hash of the package's inputs now ({@link inputsHash}). */
  readonly inputs: string;
  /** The hash its last build recorded, if any. */
  readonly recorded: string | undefined;
  /** Whether dist/ holds a finished build. */
  readonly outputsPresent: boolean;
  /** Rebuild whatever the rest says. */
  readonly force?: boolean;
}

/** Whether a package must be built, and why (or why not). */
export declare function buildDecision(state: BuildState): { readonly build: boolean; readonly reason: string };

/** A hash of what building the package in `dir` reads (its own inputs, the shared ones, its @autosave dependencies'). */
export declare function inputsHash(dir: string, workspaces: readonly string[], root?: string): Promise<string>;

/** Builds the named packages (by folder name; all when none), each only when its inputs changed or `force`. */
export declare function buildPackages(names?: readonly string[], options?: { readonly force?: boolean }): Promise<void>;

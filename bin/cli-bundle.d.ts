/** The project root (bin/..). */
export declare const PROJECT_ROOT: string;
/** Where the CLI bundles and their manifest live (node_modules/.cache/autosave/cli). */
export declare const CLI_BUNDLE_DIR: string;
/** The file URL of the CLI bundle's entry, built first when missing or out of date (force: build anyway). */
export declare function cliBundle(options?: { force?: boolean }): Promise<string>;

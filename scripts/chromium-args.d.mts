// The types of chromium-args.mjs, for the TypeScript tests that import it.
export declare const CHROMIUM_ARGS: readonly string[];

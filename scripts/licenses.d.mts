// The types of licenses.mjs, for its test.
export declare const packageDirOf: (input: string) => string | null;
export declare const licenceNotices: (
  builds: [string | null, { outputs: Record<string, { inputs: Record<string, unknown> }> }][],
) => string;

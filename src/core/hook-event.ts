// The event a hook's input names, found without parsing it (a large input, or one the caller cannot parse yet).

const EVENT_KEY = Buffer.from('"hook_event_name"');

/**
 * The event named in the input, for the words of a message only (never for a decision): the first key of that
 * name outside a string (a quote inside one is escaped). Undefined when there is none.
 */
export const sniffEvent = (input: Buffer): string | undefined => {
  const at = input.indexOf(EVENT_KEY);
  if (at < 0 || input[at - 1] === 0x5c) return undefined;
  const after = input.subarray(at + EVENT_KEY.length, at + EVENT_KEY.length + 64).toString('latin1');
  return /^\s*:\s*"([A-Za-z]{1,40})"/.exec(after)?.[1];
};

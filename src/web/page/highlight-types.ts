// What the page and its highlighting worker say to each other.

/** One hunk's sides (old, new), each its lines joined by '\n', in the language of the change's file. */
export interface TokenJob {
  id: number;
  lang: string;
  sides: string[];
}

/** Per side, per line: [length, colour role, font style] repeated; null when the language is not highlighted. */
export interface TokenReply {
  id: number;
  sides: number[][][] | null;
  /** something the worker tried was refused by the page's policy (it should never happen) */
  violation?: string;
}

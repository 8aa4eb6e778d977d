// The highlighting worker: shiki's core with the JavaScript regular-expression engine (no WebAssembly, which the
// page's policy does not allow) and a fixed set of grammars, all bundled: nothing is fetched. It answers each
// side of a hunk with its tokens as numbers (length, colour role, font style), never as markup.
import { createHighlighterCore, type HighlighterCore } from 'shiki/core';
import { createJavaScriptRegexEngine } from 'shiki/engine/javascript';
import css from 'shiki/langs/css.mjs';
import go from 'shiki/langs/go.mjs';
import html from 'shiki/langs/html.mjs';
import javascript from 'shiki/langs/javascript.mjs';
import json from 'shiki/langs/json.mjs';
import jsx from 'shiki/langs/jsx.mjs';
import markdown from 'shiki/langs/markdown.mjs';
import python from 'shiki/langs/python.mjs';
import rust from 'shiki/langs/rust.mjs';
import shellscript from 'shiki/langs/shellscript.mjs';
import tsx from 'shiki/langs/tsx.mjs';
import typescript from 'shiki/langs/typescript.mjs';
import yaml from 'shiki/langs/yaml.mjs';
import dark from 'shiki/themes/github-dark.mjs';
import light from 'shiki/themes/github-light.mjs';
import type { TokenJob, TokenReply } from './highlight-types';
import { roleOf, roleTheme, type ThemeSource, themeRoles } from './theme-roles';

/** The grammars by the names review-data.ts gives; each registered the first time a file of it is shown. */
const LANGS: Record<string, typeof typescript> = {
  typescript,
  tsx,
  javascript,
  jsx,
  json,
  markdown,
  python,
  go,
  rust,
  css,
  html,
  shellscript,
  yaml,
};
/** Longer lines stay plain: a minified line would hold the worker for seconds. */
const MAX_LINE = 2000;

const theme = roleTheme(light as ThemeSource, themeRoles(light as ThemeSource, dark as ThemeSource));
let highlighter: Promise<HighlighterCore> | undefined;
const ready = (): Promise<HighlighterCore> => {
  highlighter ??= createHighlighterCore({
    themes: [theme as never],
    langs: [],
    // forgiving: a pattern the engine cannot translate leaves its tokens plain instead of failing the whole line
    engine: createJavaScriptRegexEngine({ forgiving: true }),
  });
  return highlighter;
};

const tokensOf = (hl: HighlighterCore, lang: string, text: string): number[][] =>
  hl
    .codeToTokensBase(text, { lang, theme: theme.name, tokenizeMaxLineLength: MAX_LINE })
    .map((line) => line.flatMap((t) => [t.content.length, roleOf(t.color), t.fontStyle ?? 0]));

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<TokenJob>) => void) | null;
  postMessage: (reply: TokenReply) => void;
  addEventListener: (type: 'securitypolicyviolation', fn: (e: SecurityPolicyViolationEvent) => void) => void;
};

// A worker's violations are not the page's: they are told to it, so they show on its console.
scope.addEventListener('securitypolicyviolation', (e) =>
  scope.postMessage({ id: -1, sides: null, violation: `${e.violatedDirective} ${e.blockedURI}` }),
);

scope.onmessage = async (e) => {
  const { id, lang, sides } = e.data;
  try {
    const hl = await ready();
    const grammar = Object.hasOwn(LANGS, lang) ? LANGS[lang] : undefined;
    if (!grammar) return scope.postMessage({ id, sides: null });
    if (!hl.getLoadedLanguages().includes(lang)) await hl.loadLanguage(grammar);
    scope.postMessage({ id, sides: sides.map((text) => tokensOf(hl, lang, text)) });
  } catch {
    scope.postMessage({ id, sides: null });
  }
};

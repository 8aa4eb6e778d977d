// Child programs for start-up and import cost.
import { fail, out } from './helpers.mjs';

export function emptyScript() {
  out({});
}

export function importOnly() {
  const target = process.argv[2];
  try {
    require(target);
    out({ loaded: 'require' });
  } catch (error) {
    if (error.code !== 'ERR_REQUIRE_ESM') fail(error);
    import(require('url').pathToFileURL(target).href).then(() => out({ loaded: 'import' }), fail);
  }
}

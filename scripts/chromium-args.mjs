// How every browser fettle's tests and bench start runs Debian's chromium: headless, no sandbox (CI runs as root),
// and nothing that reaches the network on its own (updates, sync, background fetches, QUIC); a machine without a
// network refuses those connections many at a time otherwise.
export const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-proxy-server',
];

// What a real client connected to, from strace's log: the suite proves that nothing leaves 127.0.0.1.

/** Every inet/inet6 connect() in an `strace -f -e trace=connect` log: the address each one went to. */
export const inetConnects = (log: string): string[] =>
  log
    .split('\n')
    .filter((l) => /connect\(\d+, \{sa_family=AF_INET6?,/.test(l))
    .map((l) => /inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6, "([^"]+)"/.exec(l)?.slice(1).find(Boolean) ?? l);

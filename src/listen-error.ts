/** A port that cannot be bound: the start stops with this message (and exit status 1), naming what and where. */
export class ListenError extends Error {
  constructor(what: string, address: string, cause: NodeJS.ErrnoException) {
    const reason =
      cause.code === 'EADDRINUSE'
        ? 'the address is already in use (another process listens there)'
        : cause.code === 'EACCES'
          ? 'permission denied (a port below 1024 needs privileges)'
          : cause.code === 'EADDRNOTAVAIL'
            ? 'no interface of this machine has that address'
            : cause.message;
    super(`cannot listen on ${address} for the ${what}: ${reason}`);
    this.name = 'ListenError';
  }
}

/** a message or RDATA that cannot be read as one (answered FORMERR) */
export class WireFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WireFormatError';
  }
}

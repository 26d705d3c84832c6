/** A problem with the user's input (flags, overlay, environment): the CLI exits 2 with this message. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

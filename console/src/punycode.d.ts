// The punycode package (exact version in package.json) ships no types; the console uses only toUnicode.
// Imported as 'punycode/' (the package's own advice) so that no bundler takes it for Node's deprecated core module.
declare module 'punycode/' {
  export function toUnicode(domain: string): string;
}

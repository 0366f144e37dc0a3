import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';

/** what only a generated document has: a string written by hand is no TypedDocument (its answer's type is unknown) */
declare const generated: unique symbol;

/**
 * A GraphQL document of the service's own clients (the REST layer's operations, the CLI's), as graphql-codegen
 * makes it from their .graphql files (scripts/operations-codegen.cjs): the document's text, carrying the types
 * of its answer and of its variables, so that what a caller reads has the type schema.graphql gives the fields
 * the document asks, never one written by hand.
 */
export type TypedDocument<TResult, TVariables> = string & DocumentTypeDecoration<TResult, TVariables> & { readonly [generated]: true };

/**
 * The tag of the generated documents: an operation's text followed by the text of each fragment it uses (each
 * fragment's document is generated once, and an operation names the ones it needs)
 */
export function gql(texts: TemplateStringsArray, ...fragments: string[]): string {
  return texts.reduce((document, text, i) => document + fragments[i - 1] + text);
}

import { Router } from 'express';
import type { ApolloServer } from '@apollo/server';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { GraphQLContext } from '../graphql/context';
import type { Services } from '../services';

export interface RestDeps { apollo: ApolloServer<GraphQLContext>; orm: MikroORM; services: Services }

export function createRestRouter(_deps: RestDeps): Router {
  return Router();
}

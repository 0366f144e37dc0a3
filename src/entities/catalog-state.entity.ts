import { BigIntType, Entity, PrimaryKey, Property } from '@mikro-orm/core';

/** The serial of the catalog zone (RFC 9432), raised in the transaction of every zone create and delete. */
@Entity({ tableName: 'catalog_state' })
export class CatalogState {
  @PrimaryKey({ type: 'text' })
  name!: string;

  @Property({ type: new BigIntType('number') })
  serial!: number;
}

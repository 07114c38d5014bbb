import type { ObjectRef } from "@pothos/core";
import type { PageOf } from "../domain/paging.ts";
import { builder, type SchemaTypes } from "./builder.ts";

/** A page of `item`s: the items and where they stand in the whole list. */
export const pageType = <T>(name: string, item: ObjectRef<SchemaTypes, T>) =>
  builder.objectRef<PageOf<T>>(name).implement({
    fields: (t) => ({
      items: t.field({ type: [item], resolve: (page) => page.items }),
      total: t.exposeInt("total"),
      limit: t.exposeInt("limit"),
      offset: t.exposeInt("offset"),
      hasMore: t.exposeBoolean("hasMore"),
    }),
  });

/** A page's arguments: at most `limit` items (`defaultLimit` when not given), from `offset` on. */
export const pageArgs = (defaultLimit: number) =>
  builder.args((t) => ({
    limit: t.int({ defaultValue: defaultLimit, description: "1 to 100." }),
    offset: t.int({ defaultValue: 0 }),
  }));

import { builder } from "./builder.ts";

builder.prismaObject("User", {
  description: "The account that owns the API key of the request.",
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID("id"),
    handle: t.exposeString("handle", { description: "The operator's name for the account, e.g. an e-mail address." }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

builder.queryField("me", (t) =>
  t.prismaField({
    type: "User",
    resolve: (query, _root, _args, { principal, services }) => services.users.me(principal, query),
  }),
);

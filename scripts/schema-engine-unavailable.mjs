#!/usr/bin/env node
// Stand-in for Prisma's native schema engine during `prisma generate` (see prisma-generate.mjs).
console.error(
  "The Prisma schema engine is not installed on this machine. This project applies its migrations with " +
    "`npm run migrate` and creates new ones with `npm run migrate:new -- <name>`; neither needs the engine.",
);
process.exit(1);

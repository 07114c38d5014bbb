/** The operations GraphiQL opens with. */
export const EXAMPLE_OPERATIONS = /* GraphQL */ `# Put your API key in the Headers tab: {"Authorization": "Bearer msk_..."}

query Recent {
  me { handle }
  memories(limit: 5) {
    total
    hasMore
    items { id content type tags createdAt }
  }
}

mutation Remember {
  createMemory(input: { content: "I prefer tea to coffee", type: "preference", tags: ["drinks"] }) {
    id
    createdAt
  }
}

# Runs until you stop it: create, change or delete a memory (here, or by REST) and watch it arrive
subscription Live {
  memoryEvents {
    type
    memoryId
    timestamp
    data
  }
}
`;

// Package memory is what an agent remembers beyond its prompt window: search over every
// stored message (keyword BM25 from the store's history index, ranked here so that every
// backend ranks alike), the recall layer of the prompt, and the memory tools the model
// calls.
//
// # What each chat may see
//
// Memory is kept per person and per chat, and what one chat may see never depends on
// what the model asks for: the tools and layers take the chat from the turn.
//
// Facts (remember, forget, the facts layer) are about one person, and carry a scope
// (mynah.Fact.VisibleIn): a fact said in a private chat is shown only in that private
// chat; one said in a group, in that group and in its owner's private chat; one saved as
// "shared", because its owner asked, in every chat they are in. Facts stored before
// scopes existed, and those an operator adds, are private. The memory flush files a fact
// by the same rule as the remember tool: about the author of the message it was said in,
// in that chat's scope.
//
// Notes are markdown files; where one lives says where it is shown (NoteScopeOf):
//
//   - curated notes (agents/<Name>/memory/, written by the operator): at the top of the
//     folder or in any folder other than chats/ and users/, global: in every chat's
//     memory layer (top level only) and search; in chats/<chat id>/, that chat's only;
//     users/<user id>.md, that person's private chat only. A person's note does not
//     follow them into groups: an operator who wants it there copies it into the
//     group's folder, deciding what the group may read.
//   - episodic notes (written by the note tool, <data>/notes/<Name>/): in
//     chats/<chat id>/, the folder of the chat the tool was called in, shown only there
//     (a private chat's are that person's). Files elsewhere in the folder, written before
//     notes had scopes, are unscoped: shown in no chat, found only by the operator's
//     search (Engine.Search, `mynah memory search`); an operator who wants one back moves
//     it into the right chat's folder.
//
// A path under chats/ or users/ that names no chat or user is unscoped too. memory_search
// and memory_get see only what the turn's chat may see, as does the memory layer; the
// recall layer reads only the chat's own messages. "about": "user" searches a person's
// own words in every chat only from their private chat; in a group, only that group's.
//
// No symbolic link in a notes folder is followed, for reading or writing (os.Root, and
// each path component checked), and the note tool stops a chat's notes at
// Config.NotesPerChat bytes.
package memory

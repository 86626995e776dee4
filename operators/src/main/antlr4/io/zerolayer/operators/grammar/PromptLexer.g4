/*
 * ZeroLayer's prompt tag language: free text with tags.
 *
 *   <name>  <name attr="v" ...>  </name>  <name/>  <task:summarize>  <section:abstract>  <figure:3>
 *
 * A whole tag is one token, so a '<' that does not start a well-formed tag ("x < y", "a<b then")
 * falls back to LT and stays text. The language is a flat token stream: PromptReader pairs open
 * and close tags itself, so an unbalanced prompt still reads and can be diagnosed, not rejected
 * by a parser error.
 */
lexer grammar PromptLexer;

CLOSE_TAG : '</' NAME (':' VALUE)? WS* '>' ;
OPEN_TAG  : '<' NAME (':' VALUE)? (WS+ ATTRIBUTE)* WS* '/'? '>' ;
TEXT      : ~'<'+ ;
// A run of '<' is one token, so 20 MiB of '<' is one token, not twenty million. (The price: in
// "<<task:x>" the tag is text, because the run takes its '<'.)
LT        : '<'+ ;

fragment NAME      : [a-zA-Z_] [a-zA-Z0-9_-]* ;
fragment VALUE     : [a-zA-Z0-9_.-]+ ;
// Attribute values cannot contain '<' or '>'. Every part of a tag thus stops at the next '<' or
// '>', so a failed tag attempt never scans past the next '<' and lexing stays linear in the input
// (an unterminated quote cannot make the lexer rescan the rest of a large prompt).
fragment ATTRIBUTE : NAME WS* '=' WS* ( '"' ~["<>]* '"' | '\'' ~['<>]* '\'' ) ;
fragment WS        : [ \t\r\n] ;

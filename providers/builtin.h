/* The one place that knows every built-in provider. */
#ifndef SM_BUILTIN_H
#define SM_BUILTIN_H
/* Registers every built-in provider once (idempotent). */
void sm_builtin_register_all(void);
#endif

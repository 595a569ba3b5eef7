/* The FMI 3.0 facade: FMI 3.0 as the core needs to know it (FMI3_STANDARD: names, message wording, pythonfmu3's
 * classes), the host's logMessage callback, the instance check and fmi3SetDebugLogging. See fmi3_runtime.c and
 * docs/fmi-runtime.md. */
#include "fmi3_runtime.h"

const char *const TYPE3_NAMES[] = {"Float64", "Int32", "Int64", "UInt64", "Boolean", "String", "Enumeration",
                                   "Float32", "Int8", "UInt8", "Int16", "UInt16", "UInt32", "Binary", "Clock",
                                   "other"};

/* Where each T_ type sits in the value table (Enumeration variables are got and set as Int64); UInt64 stays on the
 * per-variable path (its values beyond 2^63 - 1 are refused there). */
static const unsigned char TYPE3_TABLE_TYPES[] = {CT_DOUBLE, CT_INT32, CT_INT64, CT_NONE, CT_BOOL_BYTE, CT_NONE,
                                                  CT_INT64, CT_NONE, CT_NONE, CT_NONE, CT_NONE, CT_NONE, CT_NONE,
                                                  CT_NONE, CT_NONE, CT_NONE};

/* FMI 3.0's callback takes the formatted message: no format string. */
static void deliver3(const Core *core, CoreStatus status, const char *category, const char *text)
{
    const Instance3 *inst = (const Instance3 *)core;
    if (inst->logger)
        inst->logger(inst->env, to_fmi3(status), category, text);
}

const CoreStandard FMI3_STANDARD = {
    .magic = 0x43524e33u, /* "CRN3": rejects pointers that are not instances of this runtime */
    .state_names = {"Instantiated", "Initialization Mode", "Step Mode", "Terminated"},
    .slave_class = "Fmi3Slave",
    .package = "pythonfmu3",
    .variable_classes = TYPE3_NAMES, /* the pythonfmu3 classes are named as the first seven types */
    .n_variable_classes = T_ENUMERATION + 1,
    .type_other = T_OTHER,
    .type_string = T_STRING,
    .type_int64 = T_INT64,
    .type_enumeration = T_ENUMERATION,
    .type_names = TYPE3_NAMES,
    .table_types = TYPE3_TABLE_TYPES,
    .causality_max = CC_STRUCTURAL,
    .settable_causality = 1 << CC_PARAMETER | 1 << CC_INPUT | 1 << CC_STRUCTURAL,
    .importer = "an importer",
    .instantiate_call = "fmi3InstantiateCoSimulation",
    .exit_init_call = "fmi3ExitInitializationMode",
    .terminate_call = "fmi3Terminate",
    .null_refs_format = "%s: nValueReferences = %zu but valueReferences or values is NULL",
    .state_type = "FMUState",
    .get_state_call = "fmi3GetFMUState",
    .deserialize_call = "fmi3DeserializeFMUState",
    .id_name = "instantiationToken",
    .passes_cancel_flag = 0, /* FMI 3.0 has no cancel call */
    .busy_rule = "FMI 3.0 allows no call on an instance from another thread while a call on it runs, and from "
                 "intermediateUpdate only gets and sets of the variables the FMU offers there: none here "
                 "(intermediateVariableGetAllowed and intermediateVariableSetAllowed are false)",
    .free_call = "fmi3FreeInstance",
    .deliver = deliver3,
};

Instance3 *checked3(fmi3Instance c, const char *call, int allowed)
{
    return (Instance3 *)core_checked(&FMI3_STANDARD, c, call, allowed);
}

Core *claimed3(fmi3Instance c, const char *call, int allowed) { return core_claim(&FMI3_STANDARD, c, call, allowed); }

FMI3_EXPORT fmi3Status fmi3SetDebugLogging(fmi3Instance c, fmi3Boolean loggingOn, size_t nCategories,
                                           const fmi3String categories[])
{
    Core *core = claimed3(c, "fmi3SetDebugLogging", CS_ANY);
    if (!core)
        return fmi3Error;
    return to_fmi3(core_release(core, core_set_debug_logging(core, "fmi3SetDebugLogging", loggingOn, nCategories,
                                                             categories)));
}

/* The FMI 2.0 facade: FMI 2.0 as the core needs to know it (FMI2_STANDARD: names, message wording, pythonfmu's
 * classes), the host's variadic logger, the instance check and fmi2SetDebugLogging. See runtime.h and
 * docs/fmi-runtime.md. */
#include "runtime.h"

static const char *const KIND_NAMES[] = {"Real", "Integer", "Boolean", "String", "other"};
/* Where each K_ type sits in the value table: fmi2Real a double, fmi2Integer and fmi2Boolean C ints. */
static const unsigned char KIND_TABLE_TYPES[] = {CT_DOUBLE, CT_INT32, CT_BOOL_INT, CT_NONE, CT_NONE};

/* The message goes as the format itself, its '%' doubled and no arguments: a host that formats it (as FMI 2.0
 * intends) shows the text, and so does a host that prints the format as it is (several do), instead of a bare
 * "%s". */
static void deliver2(const Core *core, CoreStatus status, const char *category, const char *text)
{
    const Instance *inst = (const Instance *)core;
    char escaped[4200];
    size_t j = 0;
    if (!inst->cb.logger)
        return;
    for (const char *c = text; *c && j + 2 < sizeof escaped; ++c) {
        if (*c == '%')
            escaped[j++] = '%';
        escaped[j++] = *c;
    }
    escaped[j] = '\0';
    inst->cb.logger(inst->cb.componentEnvironment, core->name ? core->name : "?", to_fmi2(status), category, escaped);
}

const CoreStandard FMI2_STANDARD = {
    .magic = 0x43524e45u, /* "CRNE": rejects pointers that are not instances of this runtime */
    .state_names = {"instantiated", "initialization mode", "stepping", "terminated"},
    .slave_class = "Fmi2Slave",
    .package = "pythonfmu",
    .variable_classes = KIND_NAMES,
    .n_variable_classes = 4,
    .type_other = K_OTHER,
    .type_string = K_STRING,
    .type_int64 = -1,
    .type_enumeration = -1,
    .type_names = KIND_NAMES,
    .table_types = KIND_TABLE_TYPES,
    .causality_max = CC_INDEPENDENT,
    .settable_causality = 1 << CC_PARAMETER | 1 << CC_INPUT,
    .importer = "a master",
    .instantiate_call = "fmi2Instantiate",
    .exit_init_call = "fmi2ExitInitializationMode",
    .terminate_call = "fmi2Terminate",
    .null_refs_format = "%s: nvr = %zu but vr or value is NULL",
    .state_type = "FMUstate",
    .get_state_call = "fmi2GetFMUstate",
    .deserialize_call = "fmi2DeSerializeFMUstate",
    .id_name = "guid",
    .passes_cancel_flag = 1,
    .busy_rule = "FMI 2.0 allows no call on an instance while another call on it runs (fmi2CancelStep during "
                 "fmi2DoStep excepted)",
    .free_call = "fmi2FreeInstance",
    .deliver = deliver2,
};

Instance *checked(fmi2Component c, const char *call, int allowed)
{
    return (Instance *)core_checked(&FMI2_STANDARD, c, call, allowed);
}

Core *claimed(fmi2Component c, const char *call, int allowed) { return core_claim(&FMI2_STANDARD, c, call, allowed); }

FMI2_EXPORT fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                                           const fmi2String categories[])
{
    Core *core = claimed(c, "fmi2SetDebugLogging", CS_ANY);
    if (!core)
        return fmi2Error;
    return to_fmi2(core_release(core, core_set_debug_logging(core, "fmi2SetDebugLogging", loggingOn != fmi2False,
                                                             nCategories, categories)));
}

#ifndef AI_FABRIC_CHAKRA_TRACE_H
#define AI_FABRIC_CHAKRA_TRACE_H

#include "ns3/trace-program.h"

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief MLCommons Chakra execution traces: one rank's file to TraceNodes and back, and the
 * process groups file.
 *
 * A trace file is a sequence of records, each a base-128 varint length and a protobuf
 * message: a GlobalMetadata, then the rank's Nodes until the end of the file (gzip-compressed
 * files are read too).  The schema is helper/chakra-et.proto, written from Chakra's field
 * definitions (doc/chakra-facts.md).  What is read:
 *  - COMP_NODE: a GPU kernel of duration_micros, or of num_ops FLOPs when the duration is 0;
 *    a host operation (is_cpu_op true) orders the work but takes no time;
 *  - COMM_COLL_NODE: comm_type ALL_REDUCE, REDUCE, ALL_GATHER, BROADCAST, ALL_TO_ALL or
 *    REDUCE_SCATTER of comm_size bytes on process group pg_name (a string, or an integer
 *    read as its decimal name);
 *  - COMM_SEND_NODE / COMM_RECV_NODE: comm_size bytes (else tensor_size) to comm_dst / from
 *    comm_src (global ranks); messages between a pair are matched in order, not by comm_tag;
 *  - METADATA_NODE and INVALID_NODE take no time;
 *  - parents are data_deps and ctrl_deps alike; integer attributes may use any integer type.
 * Refused, naming the file and node: MEM_LOAD_NODE and MEM_STORE_NODE (no remote-memory
 * model), GATHER, SCATTER, REDUCE_SCATTER_BLOCK and BARRIER collectives, a collective without
 * comm_type or comm_size, host collectives, and a send or receive whose other end is missing
 * or whose own end is not the file's rank.
 */
class ChakraTrace
{
  public:
    /** Rank \p rank's nodes from the file \p path; throws std::invalid_argument. */
    static std::vector<TraceNode> Read(const std::string& path, uint32_t rank);
    /** Write \p nodes as rank \p rank's trace file to \p os. */
    static void Write(std::ostream& os, const std::vector<TraceNode>& nodes, uint32_t rank);
    /**
     * Process groups from \p path, ASTRA-sim's communicator-group file: a JSON object of
     * group name (the nodes' pg_name) -> array of ranks, e.g. {"1": [0, 1, 2, 3]}.
     */
    static std::map<std::string, std::vector<uint32_t>> ReadGroups(const std::string& path);
    static void WriteGroups(std::ostream& os, const std::map<std::string, std::vector<uint32_t>>& groups);
    /** The file of rank \p rank's trace: "<prefix>.<rank>.et", ASTRA-sim's naming. */
    static std::string RankFile(const std::string& prefix, uint32_t rank);
};

} // namespace ns3

#endif

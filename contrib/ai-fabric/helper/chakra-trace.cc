#include "chakra-trace.h"

#include "chakra-et.pb.h"

#include "ns3/log.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/gzip_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <memory>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraTrace");

namespace
{
namespace pb = aifabric::chakra;
using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;

/** The attribute \p name of \p node, or null. */
const pb::AttributeProto*
Find(const pb::Node& node, const std::string& name)
{
    for (const auto& a : node.attr())
    {
        if (a.name() == name)
        {
            return &a; // the first of a name counts, as in Chakra's feeders
        }
    }
    return nullptr;
}

/** Whether \p a holds an integer (of any protobuf integer type); its value in \p v. */
bool
Integer(const pb::AttributeProto& a, int64_t& v)
{
    switch (a.value_case())
    {
    case pb::AttributeProto::kInt32Val:
        v = a.int32_val();
        return true;
    case pb::AttributeProto::kInt64Val:
        v = a.int64_val();
        return true;
    case pb::AttributeProto::kUint32Val:
        v = a.uint32_val();
        return true;
    case pb::AttributeProto::kUint64Val:
        v = static_cast<int64_t>(a.uint64_val());
        return a.uint64_val() <= uint64_t(INT64_MAX);
    case pb::AttributeProto::kSint32Val:
        v = a.sint32_val();
        return true;
    case pb::AttributeProto::kSint64Val:
        v = a.sint64_val();
        return true;
    case pb::AttributeProto::kFixed32Val:
        v = a.fixed32_val();
        return true;
    case pb::AttributeProto::kFixed64Val:
        v = static_cast<int64_t>(a.fixed64_val());
        return a.fixed64_val() <= uint64_t(INT64_MAX);
    case pb::AttributeProto::kSfixed32Val:
        v = a.sfixed32_val();
        return true;
    case pb::AttributeProto::kSfixed64Val:
        v = a.sfixed64_val();
        return true;
    default:
        return false;
    }
}

/** A node's reading context: errors name the file and node. */
struct NodeReader
{
    const std::string& path;
    const pb::Node& node;

    [[noreturn]] void Fail(const std::string& what) const
    {
        throw std::invalid_argument(path + ", node " + std::to_string(node.id()) +
                                    (node.name().empty() ? "" : " (" + node.name() + ")") + ": " +
                                    what);
    }

    /** Integer attribute \p name: false if absent; refused if not an integer >= 0. */
    bool Get(const std::string& name, int64_t& v) const
    {
        const pb::AttributeProto* a = Find(node, name);
        if (!a)
        {
            return false;
        }
        if (!Integer(*a, v) || v < 0)
        {
            Fail("attribute " + name + " must be an integer >= 0");
        }
        return true;
    }

    int64_t Require(const std::string& name, const std::string& what) const
    {
        int64_t v = 0;
        if (!Get(name, v))
        {
            Fail("attribute " + name + " is required: " + what);
        }
        return v;
    }

    bool Cpu() const
    {
        const pb::AttributeProto* a = Find(node, "is_cpu_op");
        return a && a->value_case() == pb::AttributeProto::kBoolVal && a->bool_val();
    }
};

/** The collective of Chakra's CollectiveCommType \p type, or false if not supported. */
bool
Operation(int64_t type, CollectiveOperation& op)
{
    switch (type)
    {
    case pb::ALL_REDUCE:
        op = ALL_REDUCE;
        return true;
    case pb::REDUCE:
        op = REDUCE;
        return true;
    case pb::ALL_GATHER:
        op = ALL_GATHER;
        return true;
    case pb::BROADCAST:
        op = BROADCAST;
        return true;
    case pb::ALL_TO_ALL:
        op = ALL_TO_ALL;
        return true;
    case pb::REDUCE_SCATTER:
        op = REDUCE_SCATTER;
        return true;
    default:
        return false;
    }
}

TraceNode
Convert(const std::string& path, const pb::Node& node, uint32_t rank)
{
    const NodeReader in{path, node};
    TraceNode n;
    n.id = node.id();
    n.name = node.name();
    n.parents.assign(node.data_deps().begin(), node.data_deps().end());
    n.parents.insert(n.parents.end(), node.ctrl_deps().begin(), node.ctrl_deps().end());
    if (const pb::AttributeProto* pg = Find(node, "pg_name"))
    {
        int64_t number = 0;
        if (pg->value_case() == pb::AttributeProto::kStringVal)
        {
            n.group = pg->string_val();
        }
        else if (Integer(*pg, number))
        {
            n.group = std::to_string(number);
        }
        else
        {
            in.Fail("attribute pg_name must be a string or an integer (the process group's name)");
        }
    }
    switch (node.type())
    {
    case pb::INVALID_NODE:
    case pb::METADATA_NODE:
        n.kind = TraceNode::ORDER;
        return n;
    case pb::COMP_NODE: {
        n.kind = in.Cpu() ? TraceNode::ORDER : TraceNode::COMPUTE;
        n.durationMicros = node.duration_micros();
        int64_t ops = 0;
        in.Get("num_ops", ops);
        n.flops = static_cast<double>(ops);
        return n;
    }
    case pb::COMM_COLL_NODE: {
        if (in.Cpu())
        {
            in.Fail("a collective must be a GPU operation (is_cpu_op false)");
        }
        n.kind = TraceNode::COLLECTIVE;
        const int64_t type = in.Require("comm_type", "the collective's CollectiveCommType");
        if (!Operation(type, n.op))
        {
            in.Fail("comm_type " + std::to_string(type) +
                    " is not supported; supported: ALL_REDUCE (0), REDUCE (1), ALL_GATHER (2), "
                    "BROADCAST (5), ALL_TO_ALL (6), REDUCE_SCATTER (7)");
        }
        n.bytes = static_cast<uint64_t>(in.Require("comm_size", "the collective's bytes"));
        if (n.bytes == 0)
        {
            in.Fail("comm_size must be > 0");
        }
        return n;
    }
    case pb::COMM_SEND_NODE:
    case pb::COMM_RECV_NODE: {
        const bool send = node.type() == pb::COMM_SEND_NODE;
        n.kind = send ? TraceNode::SEND : TraceNode::RECV;
        const char* own = send ? "comm_src" : "comm_dst";
        const char* other = send ? "comm_dst" : "comm_src";
        int64_t self = rank;
        if (in.Get(own, self) && self != rank)
        {
            in.Fail(std::string(own) + " is " + std::to_string(self) + " in rank " +
                    std::to_string(rank) + "'s trace");
        }
        n.peer = static_cast<uint32_t>(std::min<int64_t>(
            in.Require(other, send ? "the destination rank" : "the source rank"), UINT32_MAX));
        int64_t bytes = 0;
        if (!in.Get("comm_size", bytes) && !in.Get("tensor_size", bytes))
        {
            in.Fail("attribute comm_size (or tensor_size) is required: the message's bytes");
        }
        n.bytes = static_cast<uint64_t>(bytes);
        return n;
    }
    default:
        in.Fail("node type " + pb::NodeType_Name(node.type()) +
                " is not supported (no remote-memory model); supported: COMP_NODE, "
                "COMM_COLL_NODE, COMM_SEND_NODE, COMM_RECV_NODE, METADATA_NODE");
    }
}
} // namespace

std::string
ChakraTrace::RankFile(const std::string& prefix, uint32_t rank)
{
    return prefix + "." + std::to_string(rank) + ".et";
}

std::vector<TraceNode>
ChakraTrace::Read(const std::string& path, uint32_t rank)
{
    std::ifstream file(path, std::ios::binary);
    if (!file)
    {
        throw std::invalid_argument(path + ": cannot read the file");
    }
    char magic[2] = {0, 0};
    file.read(magic, 2);
    const bool gzip = file.gcount() == 2 && magic[0] == '\x1f' && magic[1] == '\x8b';
    file.clear();
    file.seekg(0);
    google::protobuf::io::IstreamInputStream raw(&file);
    std::unique_ptr<google::protobuf::io::GzipInputStream> unzip;
    if (gzip)
    {
        unzip = std::make_unique<google::protobuf::io::GzipInputStream>(&raw);
    }
    google::protobuf::io::ZeroCopyInputStream* stream = unzip ? static_cast<google::protobuf::io::ZeroCopyInputStream*>(unzip.get()) : &raw;
    const auto bad = [&path](uint64_t record, const std::string& what) {
        return std::invalid_argument(path + ": record " + std::to_string(record) + " " + what);
    };
    std::vector<TraceNode> nodes;
    for (uint64_t record = 0;; ++record)
    {
        // A stream per record: its byte limit counts one record, and on leaving it hands
        // back what it read ahead.
        CodedInputStream in(stream);
        uint32_t size = 0;
        if (!in.ReadVarint32(&size))
        {
            const void* rest = nullptr;
            int available = 0;
            if (in.GetDirectBufferPointer(&rest, &available) || (unzip && unzip->ZlibErrorCode() < 0))
            {
                throw bad(record, "has no valid length: the file is not a Chakra trace or is damaged");
            }
            if (record == 0)
            {
                throw std::invalid_argument(path + ": empty or not a Chakra trace (no GlobalMetadata)");
            }
            break;
        }
        const auto limit = in.PushLimit(static_cast<int>(size));
        pb::GlobalMetadata header;
        pb::Node node;
        google::protobuf::Message& m = record == 0 ? static_cast<google::protobuf::Message&>(header) : node;
        if (!m.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage())
        {
            throw bad(record, std::string("is not a Chakra ") + (record == 0 ? "GlobalMetadata" : "Node") + " message");
        }
        if (in.BytesUntilLimit() > 0)
        {
            throw bad(record, "is cut short: the file ends inside it");
        }
        in.PopLimit(limit);
        if (record > 0)
        {
            nodes.push_back(Convert(path, node, rank));
        }
    }
    NS_LOG_INFO(path << ": " << nodes.size() << " nodes");
    return nodes;
}

namespace
{
pb::AttributeProto*
Attr(pb::Node& node, const std::string& name)
{
    pb::AttributeProto* a = node.add_attr();
    a->set_name(name);
    return a;
}

int64_t
CommType(CollectiveOperation op)
{
    switch (op)
    {
    case ALL_REDUCE:
        return pb::ALL_REDUCE;
    case REDUCE:
        return pb::REDUCE;
    case ALL_GATHER:
        return pb::ALL_GATHER;
    case BROADCAST:
        return pb::BROADCAST;
    case ALL_TO_ALL:
        return pb::ALL_TO_ALL;
    case REDUCE_SCATTER:
        return pb::REDUCE_SCATTER;
    }
    return pb::ALL_REDUCE;
}

void
WriteRecord(CodedOutputStream& out, const google::protobuf::Message& m)
{
    out.WriteVarint32(static_cast<uint32_t>(m.ByteSizeLong()));
    m.SerializeWithCachedSizes(&out);
}

/** \p n of rank \p rank as a Chakra node, its attributes of the canonical types. */
pb::Node
ToNode(const TraceNode& n, uint32_t rank)
{
    pb::Node node;
    node.set_id(n.id);
    node.set_name(n.name);
    for (uint64_t p : n.parents)
    {
        node.add_data_deps(p);
    }
    Attr(node, "is_cpu_op")->set_bool_val(false);
    switch (n.kind)
    {
    case TraceNode::ORDER:
        node.set_type(pb::METADATA_NODE);
        break;
    case TraceNode::COMPUTE:
        node.set_type(pb::COMP_NODE);
        node.set_duration_micros(n.durationMicros);
        break;
    case TraceNode::COLLECTIVE:
        node.set_type(pb::COMM_COLL_NODE);
        Attr(node, "comm_type")->set_int64_val(CommType(n.op));
        Attr(node, "comm_size")->set_int64_val(static_cast<int64_t>(n.bytes));
        if (!n.group.empty())
        {
            Attr(node, "pg_name")->set_string_val(n.group);
        }
        break;
    case TraceNode::SEND:
    case TraceNode::RECV: {
        const bool send = n.kind == TraceNode::SEND;
        node.set_type(send ? pb::COMM_SEND_NODE : pb::COMM_RECV_NODE);
        Attr(node, "comm_src")->set_int32_val(static_cast<int32_t>(send ? rank : n.peer));
        Attr(node, "comm_dst")->set_int32_val(static_cast<int32_t>(send ? n.peer : rank));
        Attr(node, "comm_tag")->set_int32_val(0);
        Attr(node, "comm_size")->set_int64_val(static_cast<int64_t>(n.bytes));
        break;
    }
    }
    return node;
}
} // namespace

void
ChakraTrace::Write(std::ostream& os, const std::vector<TraceNode>& nodes, uint32_t rank)
{
    google::protobuf::io::OstreamOutputStream raw(&os);
    CodedOutputStream out(&raw);
    pb::GlobalMetadata header;
    header.set_version("1.0.0"); // never an empty record: some readers take 0 as the end
    pb::AttributeProto* schema = header.add_attr();
    schema->set_name("schema");
    schema->set_string_val("ai-fabric TraceProgram");
    WriteRecord(out, header);
    for (const TraceNode& n : nodes)
    {
        WriteRecord(out, ToNode(n, rank));
    }
}

std::map<std::string, std::vector<uint32_t>>
ChakraTrace::ReadGroups(const std::string& path)
{
    std::ifstream file(path);
    if (!file)
    {
        throw std::invalid_argument(path + ": cannot read the process groups file");
    }
    nlohmann::json j;
    try
    {
        j = nlohmann::json::parse(file);
    }
    catch (const nlohmann::json::exception& e)
    {
        throw std::invalid_argument(path + ": not JSON: " + e.what());
    }
    const std::string shape = ": a JSON object of group name -> array of ranks, e.g. "
                              "{\"1\": [0, 1, 2, 3]}";
    if (!j.is_object())
    {
        throw std::invalid_argument(path + shape);
    }
    std::map<std::string, std::vector<uint32_t>> groups;
    for (const auto& [name, ranks] : j.items())
    {
        if (!ranks.is_array() || ranks.empty())
        {
            throw std::invalid_argument(path + ", group '" + name + "'" + shape);
        }
        for (const auto& r : ranks)
        {
            if (!r.is_number_unsigned() || r.get<uint64_t>() > UINT32_MAX)
            {
                throw std::invalid_argument(path + ", group '" + name + "': " + r.dump() +
                                            " is not a rank (an integer >= 0)");
            }
            groups[name].push_back(r.get<uint32_t>());
        }
    }
    return groups;
}

void
ChakraTrace::WriteGroups(std::ostream& os, const std::map<std::string, std::vector<uint32_t>>& groups)
{
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [name, ranks] : groups)
    {
        j[name] = ranks;
    }
    os << j.dump() << "\n";
}

} // namespace ns3
